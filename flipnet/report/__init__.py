"""Reports: the paper's claims beside flipnet's results (`compare`), the figures
(`plots`), and timings beside reference implementations (`bench`)."""
