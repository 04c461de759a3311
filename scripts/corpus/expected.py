#!/usr/bin/python3
"""Expected cell values of the corpus workbooks, read by an independent reader (openpyxl).

Run with Debian's Python, whose openpyxl (3.0.9) is the reference (not a pyenv python3):

    /usr/bin/python3 scripts/corpus/expected.py CORPUS_DIR [FILE...]

For every .xlsx/.xlsm under CORPUS_DIR (or the FILEs given), writes FILE.expected.json beside it:

    {"reader": "openpyxl 3.0.9", "sheets": [{"name", "hidden", "merged": ["A1:B2", ...],
      "rows": [[cell, ...], ...]}]}            # rows 1..max_row, columns A..max_column

A cell is null when empty, else [kind, value]: ["s", text], ["n", repr of the float or int],
["b", true|false], ["d", ISO date-time, serial number], ["e", "#N/A"], or ["f", formula] for a
formula saved without its result (data_only=True gives None, the formula read gives its text).
Two things openpyxl does that are not in the file are undone: it writes a hyperlink's target into
an empty cell that carries the link (bind_hyperlinks is skipped), and a date's serial is counted
from the workbook's own epoch (1900 or 1904, as the file stores it).

A file openpyxl cannot open (a part name in another case, backslashes in the ZIP, Strict OOXML,
a style it rejects) is cross-checked by LibreOffice: `soffice --headless --convert-to xlsx` saves
a copy that openpyxl then reads ("reader" says so). A file neither opens gets
{"error": "ExceptionName: message"}. Each file gets at most TIMEOUT seconds (a file openpyxl takes
longer on is recorded as an error too).
"""

import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import warnings

import re
import zipfile

import openpyxl
import openpyxl.reader.excel
from openpyxl.cell.text import Text
from openpyxl.xml.constants import SHEET_MAIN_NS
from openpyxl.xml.functions import iterparse
from openpyxl.utils.datetime import to_excel
from openpyxl.worksheet._reader import WorkSheetParser, WorksheetReader

warnings.simplefilter("ignore")

# OOXML escapes a character XML cannot hold as _xHHHH_ (ECMA-376 part 1, ST_Xstring; Excel writes a
# CR as _x000D_ and shows a CR). openpyxl 3.0.9 keeps the escapes and only strips "x005F_" from
# shared strings: its text is decoded here as Excel shows it, once, in one pass.
ESCAPE = re.compile(r"_x([0-9a-fA-F]{4})_")
_content = Text.content.fget
Text.content = property(lambda self: ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), _content(self)))


def read_string_table(xml_source):
    strings = []
    for _, node in iterparse(xml_source):
        if node.tag == "{%s}si" % SHEET_MAIN_NS:
            strings.append(Text.from_tree(node).content)
            node.clear()
    return strings


openpyxl.reader.excel.read_string_table = read_string_table

# A `t="str"` cell's <v> is an ST_Xstring too: SheetJS writes a CR in one as `_x000d_` (Excel
# decodes it), and openpyxl keeps the escape there as well: decoded the same way.
_parse_cell = WorkSheetParser.parse_cell


def parse_cell(self, element):
    cell = _parse_cell(self, element)
    if element.get("t") == "str" and isinstance(cell["value"], str):
        cell["value"] = ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), cell["value"])
    return cell


WorkSheetParser.parse_cell = parse_cell
# The file's cells, not openpyxl's hyperlink convenience (Cell.hyperlink fills an empty cell).
WorksheetReader.bind_hyperlinks = lambda self: None
TIMEOUT = 60


class Timeout(Exception):
    pass


def on_alarm(_signum, _frame):
    raise Timeout(f"openpyxl took more than {TIMEOUT} s")


def cell_of(v, data_type, formula_cell, epoch):
    if v is None:
        if formula_cell is not None and isinstance(formula_cell.value, str) and formula_cell.value.startswith("="):
            return ["f", formula_cell.value[1:]]
        return None
    if data_type == "e":
        return ["e", str(v)]
    if isinstance(v, bool):
        return ["b", v]
    if isinstance(v, (int, float)):
        return ["n", repr(v)]
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time, datetime.timedelta)):
        try:
            serial = to_excel(v, epoch)
        except Exception:  # noqa: BLE001 - a value openpyxl cannot turn back into a serial
            serial = None
        return ["d", v.isoformat() if hasattr(v, "isoformat") else str(v), None if serial is None else repr(serial)]
    return ["s", str(v)]


def expected(path):
    wb = openpyxl.load_workbook(path, data_only=True)
    try:
        wf = openpyxl.load_workbook(path, data_only=False)
    except Exception:  # noqa: BLE001 - the formulas are only a note
        wf = None
    sheets = []
    for ws in wb.worksheets:
        fs = wf[ws.title] if wf is not None and ws.title in wf.sheetnames else None
        rows = []
        if ws._cells:
            max_row = max(r for r, _ in ws._cells)
            max_col = max(c for _, c in ws._cells)
            grid = [[None] * max_col for _ in range(max_row)]
            for (r, c), cell in ws._cells.items():
                f = fs._cells.get((r, c)) if fs is not None else None
                grid[r - 1][c - 1] = cell_of(cell.value, cell.data_type, f, wb.epoch)
            # Trailing empty cells and rows say nothing: trimmed.
            for row in grid:
                while row and row[-1] is None:
                    row.pop()
            while grid and not grid[-1]:
                grid.pop()
            rows = grid
        sheets.append(
            {
                "name": ws.title,
                "hidden": ws.sheet_state != "visible",
                "merged": [str(m) for m in ws.merged_cells.ranges],
                "rows": rows,
            }
        )
    return {"reader": "openpyxl " + openpyxl.__version__, "sheets": sheets}


def read(p):
    signal.alarm(TIMEOUT)
    try:
        return expected(p)
    finally:
        signal.alarm(0)


def via_libreoffice(p, why):
    """LibreOffice's reading, for a file openpyxl cannot open: its re-saved copy, read by openpyxl."""
    tmp = tempfile.mkdtemp()
    try:
        src = os.path.join(tmp, "in" + os.path.splitext(p)[1].lower().replace(".xlsm", ".xlsx"))
        shutil.copy(p, src)
        out = os.path.join(tmp, "out")
        subprocess.run(
            ["soffice", "--headless", f"-env:UserInstallation=file://{tmp}/profile", "--convert-to", "xlsx", "--outdir", out, src],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=False,
        )
        conv = os.path.join(out, "in.xlsx")
        if not os.path.exists(conv):
            return None
        res = read(conv)
        res["reader"] = "LibreOffice 7.4 (re-saved as .xlsx) + openpyxl " + openpyxl.__version__
        res["openpyxl_error"] = why
        return res
    except Exception:  # noqa: BLE001 - LibreOffice could not read it either
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def via_slashes(p, why):
    """A ZIP whose entry names use backslashes (Windows tools) that neither reference opens: openpyxl
    reads a copy with "/" for "\\" in the names (what payops, calamine and PhpSpreadsheet read)."""
    try:
        z = zipfile.ZipFile(p)
    except zipfile.BadZipFile:
        return None
    with z:
        if not any("\\" in n for n in z.namelist()):
            return None
        tmp = tempfile.mkdtemp()
        try:
            copy = os.path.join(tmp, "slashes.xlsx")
            with zipfile.ZipFile(copy, "w") as out:
                for i in z.infolist():
                    out.writestr(i.filename.replace("\\", "/"), z.read(i))
            res = read(copy)
            res["reader"] = "openpyxl " + openpyxl.__version__ + " (a copy with / for \\ in ZIP entry names)"
            res["openpyxl_error"] = why
            return res
        except Exception:  # noqa: BLE001
            return None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    root = argv[1]
    files = argv[2:]
    if not files:
        for dp, _, fn in os.walk(root):
            for f in fn:
                if f.lower().endswith((".xlsx", ".xlsm")):
                    files.append(os.path.join(dp, f))
    for p in sorted(files):
        try:
            out = read(p)
        except Exception as e:  # noqa: BLE001 - recorded: the file is one the reference cannot open
            why = f"{type(e).__name__}: {e}"[:300]
            out = via_libreoffice(p, why) or via_slashes(p, why) or {"reader": "openpyxl " + openpyxl.__version__, "error": why}
        if out.get("sheets") == [] and not out.get("openpyxl_error"):
            # No worksheet at all (Strict OOXML, which openpyxl 3.0 does not read): LibreOffice's reading.
            out = via_libreoffice(p, "openpyxl read no worksheet") or out
        with open(p + ".expected.json", "w", encoding="utf-8") as fh:
            # ASCII: a string may hold a lone surrogate (an `_xD83D_` escape), which UTF-8 cannot.
            json.dump(out, fh, ensure_ascii=True, separators=(",", ":"))
            fh.write("\n")


signal.signal(signal.SIGALRM, on_alarm)

if __name__ == "__main__":
    main(sys.argv)
