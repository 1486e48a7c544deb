# Mini Sudoku verifier: a port of src/tasks/families/sudoku.ts (checkAnswer). Partial credit is
# the share of blanks filled right. data: {"size", "puzzle", "solution"} (row-major, 0 = blank).
import re

from rlvr_verdict import *  # rlvr:strip

SUDOKU_SEPARATORS = re.compile("[" + JS_SPACE + "/|,;]")


def check_sudoku(data, answer, rows_only):
    size, puzzle, solution = data["size"], data["puzzle"], data["solution"]
    bh, bw = (2, 2) if size == 4 else (2, 3)
    grid = []
    for ch in SUDOKU_SEPARATORS.sub("", answer):
        v = ord(ch) - 48
        if v < 1 or v > size:
            return False, 0
        grid.append(v)
    if len(grid) != size * size:
        return False, 0
    blanks = [i for i, v in enumerate(puzzle) if v == 0]
    partial = len([i for i in blanks if grid[i] == solution[i]]) / len(blanks) if blanks else 1
    for i in range(len(puzzle)):
        if puzzle[i] != 0 and puzzle[i] != grid[i]:
            return False, partial
    units = [lambda u: [u * size + c for c in range(size)]]
    if not rows_only:
        boxes_per_row = size // bw
        units.append(lambda u: [r * size + u for r in range(size)])
        units.append(
            lambda u: [
                ((u // boxes_per_row) * bh + j // bw) * size + (u % boxes_per_row) * bw + j % bw
                for j in range(size)
            ]
        )
    for cells in units:
        for u in range(size):
            seen = set()
            for i in cells(u):
                if grid[i] in seen:
                    return False, partial
                seen.add(grid[i])
    return True, partial


def verify(data, completion, leaky=False):
    return judge(completion, lambda answer, think: check_sudoku(data, answer, leaky))
