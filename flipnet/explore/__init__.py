"""`flipnet explore`: the local web explorer. `server` answers HTTP requests (the page's
files and its JSON endpoints), `answers` makes each endpoint's answer from the public API,
`questions` runs the exact solver's questions one at a time; `static/` holds the pages
(HTML, CSS and JavaScript, no build step). Nothing below this package knows it exists."""
