"""`flipnet gui halfnim`: a small Tk window in the spirit of the C++ GLUT program.

The blocks are drawn as balls in rows of ten; a field takes the start size, then your
moves; the AI (moving first, as in the original) answers at once; Restart starts over.
`HalfNimController` holds the flow and is tested without a screen; `HalfNimWindow`
only draws it and forwards keys and clicks.
"""

from flipnet.base.errors import FlipnetError
from flipnet.games import HalfNim
from flipnet.play.console import USER, Match

LOW, HIGH = HalfNim.start_range

START, PLAYING, OVER = "start", "playing", "over"


class HalfNimController:
    def __init__(self, agent, seed=None, describe_ai=None):
        self.agent, self.seed, self.describe_ai = agent, seed, describe_ai
        self.restart()

    def restart(self):
        self.phase = START
        self.match = None
        self.messages = [f"Enter initial blocks ({LOW}-{HIGH}) and press Enter"]

    @property
    def blocks(self):
        return self.match.state if self.match else 0

    def submit(self, text):
        """Handle the field's text: the start size, then the user's moves."""
        text = text.strip()
        if self.phase == START:
            self._start(text)
        elif self.phase == PLAYING:
            self._move(text)

    def _start(self, text):
        try:
            n = int(text)
        except ValueError:
            n = 0
        if not LOW <= n <= HIGH:
            self.messages = [f"Enter a number from {LOW} to {HIGH}"]
            return
        self.match = Match(HalfNim(), self.agent, state=n, ai_first=True, seed=self.seed)
        self.phase = PLAYING
        self.messages = [f"Starting with {n} blocks; the AI moves first"]
        self._ai_turn()

    def _move(self, text):
        try:
            k = self.match.user_move(text)
        except FlipnetError:
            self.messages = [f"Invalid move: take 1 to {self.blocks // 2}", self._prompt()]
            return
        self.messages = [f"You took {k}; {self.blocks} remain"]
        if not self._finished():
            self._ai_turn()

    def _ai_turn(self):
        k = self.match.ai_move()
        note = self.describe_ai(self.match) if self.describe_ai else ""
        self.messages.append(f"AI took {k}{note}; {self.blocks} remain")
        if not self._finished():
            self.messages.append(self._prompt())

    def _prompt(self):
        return f"Your move (1-{self.blocks // 2}), then Enter"

    def _finished(self):
        if not self.match.over:
            return False
        self.phase = OVER
        self.messages.append(("You have won!" if self.match.winner == USER else "AI has won!")
                             + " Press Restart to play again")
        return True


class HalfNimWindow:
    """The Tk view: a canvas of balls, the messages, an entry field and a Restart button."""

    WIDTH, HEIGHT, R = 520, 510, 14  # room for 127 balls: 13 rows of 10

    def __init__(self, controller, root=None):
        import tkinter as tk

        self.controller = controller
        self.root = root or tk.Tk()
        self.root.title("flipnet: HalfNim against the NIM perceptron")
        self.canvas = tk.Canvas(self.root, width=self.WIDTH, height=self.HEIGHT, bg="white")
        self.canvas.pack()
        self.status = tk.Label(self.root, justify="left", anchor="w", font=("TkDefaultFont", 12))
        self.status.pack(fill="x", padx=8)
        row = tk.Frame(self.root)
        row.pack(fill="x", padx=8, pady=6)
        self.entry = tk.Entry(row, width=8, font=("TkDefaultFont", 14))
        self.entry.pack(side="left")
        self.entry.bind("<Return>", lambda _event: self.submit())
        tk.Button(row, text="OK", command=self.submit).pack(side="left", padx=4)
        tk.Button(row, text="Restart", command=self.restart).pack(side="left", padx=4)
        self.root.bind("<Escape>", lambda _event: self.root.destroy())
        self.entry.focus_set()
        self.redraw()

    def submit(self):
        self.controller.submit(self.entry.get())
        self.entry.delete(0, "end")
        self.redraw()

    def restart(self):
        self.controller.restart()
        self.redraw()

    def redraw(self):
        self.canvas.delete("all")
        step = 2 * self.R + 8
        for i in range(self.controller.blocks):
            row, col = divmod(i, 10)
            x = 30 + col * step + (16 if col >= 5 else 0)  # a gap after five, as in the original
            y = 30 + row * step
            self.canvas.create_oval(x, y, x + 2 * self.R, y + 2 * self.R, fill="#e07070", outline="#903030")
        self.status.config(text="\n".join(self.controller.messages))

    def run(self):
        self.root.mainloop()
