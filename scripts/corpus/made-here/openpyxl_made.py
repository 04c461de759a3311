#!/usr/bin/python3
"""Workbooks written by openpyxl (Debian's 3.0.9) for the made-here corpus: OUT/openpyxl/*.xlsx.

    /usr/bin/python3 scripts/corpus/made-here/openpyxl_made.py OUT

The same contents as the other writers' scripts (content.py): strings, numbers and their formats,
dates (1900 and 1904), booleans, errors, formulas (openpyxl computes none: saved without a result),
layout (title above the header, gaps, merged ranges, hidden rows, hidden and very hidden sheets,
autofilter), many sheets and a refunds export. (openpyxl 3.0 writes no rich text.)
"""
import os
import sys

import openpyxl
from openpyxl.utils.datetime import CALENDAR_MAC_1904

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import content as C  # noqa: E402

out = os.path.join(sys.argv[1], "openpyxl")
os.makedirs(out, exist_ok=True)


def save(wb, name):
    wb.save(os.path.join(out, name))


def strings():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Strings"
    for i, s in enumerate(C.STRINGS, 1):
        ws.cell(i, 1, s)
    save(wb, "strings.xlsx")


def numbers():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Numbers"
    ws.append(["value", "format"])
    for v, fmt in C.NUMBERS:
        ws.append([v, fmt])
        ws.cell(ws.max_row, 1).number_format = fmt
    ws.append([0.1 + 0.2, "sum of floats"])
    save(wb, "numbers.xlsx")


def dates(epoch1904):
    wb = openpyxl.Workbook()
    if epoch1904:
        wb.epoch = CALENDAR_MAC_1904
    ws = wb.active
    ws.title = "Dates"
    for v, fmt in C.DATES:
        ws.append([v, fmt])
        ws.cell(ws.max_row, 1).number_format = fmt
    save(wb, "dates-1904.xlsx" if epoch1904 else "dates.xlsx")


def types():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Types"
    ws.append(["bool", True, False])
    ws.append(["error", "#N/A", "#DIV/0!"])
    ws.cell(2, 2).data_type = "e"
    ws.cell(2, 3).data_type = "e"
    ws.append(["formula", "=1+2", "=B1", '="a"&"b"', "=SUM(B5:B6)"])
    ws.append(["blank below"])
    ws.append([10.25])
    ws.append([20.5])
    save(wb, "types.xlsx")


def layout():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Layout"
    ws["A1"] = C.TITLE
    for i, row in enumerate(C.LAYOUT_ROWS):
        for j, v in enumerate(row):
            if v is not None:
                ws.cell(3 + i + (1 if i > 2 else 0), 1 + j + (1 if j > 1 else 0), v)
    ws.merge_cells("A2:D2")
    ws["A2"] = "merged note"
    ws.merge_cells("F4:F6")
    ws.row_dimensions[5].hidden = True
    ws.auto_filter.ref = "A3:F9"
    h = wb.create_sheet("Hidden")
    h["A1"] = "hidden sheet"
    h.sheet_state = "hidden"
    v = wb.create_sheet("VeryHidden")
    v["A1"] = "very hidden sheet"
    v.sheet_state = "veryHidden"
    save(wb, "layout.xlsx")


def many():
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for n in range(1, C.MANY + 1):
        ws = wb.create_sheet(f"S{n:02d}")
        ws["A1"] = f"sheet {n}"
        ws["B2"] = n
    save(wb, "many-sheets.xlsx")


def refunds():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Refunds"
    ws.append(C.REFUND_HEADER)
    for r in C.REFUNDS:
        ws.append(list(r))
        ws.cell(ws.max_row, 2).number_format = "00000"
        ws.cell(ws.max_row, 4).number_format = "#,##0.00"
        ws.cell(ws.max_row, 5).number_format = "#,##0.00"
    save(wb, "refunds.xlsx")


strings()
numbers()
dates(False)
dates(True)
types()
layout()
many()
refunds()
