#!/usr/bin/python3
"""Workbooks written by XlsxWriter (Debian's python3-xlsxwriter) for the made-here corpus.

    /usr/bin/python3 scripts/corpus/made-here/xlsxwriter_made.py OUT     # OUT/xlsxwriter/*.xlsx

The contents of content.py. XlsxWriter computes no formula: a formula without a value given is
saved with the result 0 (its documented rule); one with a value given keeps that value. The
constant_memory workbook writes its strings inline (no shared strings part).
"""
import os
import sys

import xlsxwriter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import content as C  # noqa: E402

out = os.path.join(sys.argv[1], "xlsxwriter")
os.makedirs(out, exist_ok=True)


def book(name, **options):
    return xlsxwriter.Workbook(os.path.join(out, name), options)


def strings(name, **options):
    wb = book(name, **options)
    ws = wb.add_worksheet("Strings")
    for i, s in enumerate(C.STRINGS):
        ws.write_string(i, 0, s)
    wb.close()


def numbers():
    wb = book("numbers.xlsx")
    ws = wb.add_worksheet("Numbers")
    ws.write_row(0, 0, ["value", "format"])
    for i, (v, fmt) in enumerate(C.NUMBERS, 1):
        ws.write_number(i, 0, float(v) if v > 2**53 else v, wb.add_format({"num_format": fmt}))
        ws.write_string(i, 1, fmt)
    ws.write_number(len(C.NUMBERS) + 1, 0, 0.1 + 0.2)
    wb.close()


def dates(epoch1904):
    wb = book("dates-1904.xlsx" if epoch1904 else "dates.xlsx", date_1904=epoch1904)
    ws = wb.add_worksheet("Dates")
    for i, (v, fmt) in enumerate(C.DATES):
        ws.write_datetime(i, 0, v, wb.add_format({"num_format": fmt}))
        ws.write_string(i, 1, fmt)
    wb.close()


def types():
    wb = book("types.xlsx")
    ws = wb.add_worksheet("Types")
    ws.write_row(0, 0, ["bool", True, False])
    ws.write_string(1, 0, "error")
    ws.write_formula(1, 1, "=NA()", None, "#N/A")
    ws.write_formula(1, 2, "=1/0", None, "#DIV/0!")
    ws.write_string(2, 0, "formula")
    ws.write_formula(2, 1, "=1+2", None, 3)
    ws.write_formula(2, 2, '="a"&"b"', None, "ab")
    ws.write_formula(2, 3, "=B1", None, True)
    ws.write_formula(2, 4, "=SUM(B5:B6)")  # no value given: saved as 0
    ws.write_string(3, 0, "blank below")
    ws.write_number(4, 1, 10.25)
    ws.write_number(5, 1, 20.5)
    wb.close()


def layout():
    wb = book("layout.xlsx")
    ws = wb.add_worksheet("Layout")
    ws.write_string(0, 0, C.TITLE)
    ws.merge_range("A2:D2", "merged note")
    for i, row in enumerate(C.LAYOUT_ROWS):
        for j, v in enumerate(row):
            if v is not None:
                ws.write(2 + i + (1 if i > 2 else 0), j + (1 if j > 1 else 0), v)
    ws.merge_range("F4:F6", "merged over three rows")
    ws.set_row(4, None, None, {"hidden": True})
    ws.autofilter("A3:F9")
    h = wb.add_worksheet("Hidden")
    h.write_string(0, 0, "hidden sheet")
    h.hide()
    wb.close()


def many():
    wb = book("many-sheets.xlsx")
    for n in range(1, C.MANY + 1):
        ws = wb.add_worksheet(f"S{n:02d}")
        ws.write_string(0, 0, f"sheet {n}")
        ws.write_number(1, 1, n)
    wb.close()


def richtext():
    wb = book("richtext.xlsx")
    ws = wb.add_worksheet("Rich")
    bold, red = wb.add_format({"bold": True}), wb.add_format({"color": "red", "italic": True})
    ws.write_rich_string(0, 0, "Refund ", bold, "approved", " for ", red, "order 01234")
    ws.write_rich_string(1, 0, bold, "中文", red, " 💳 ", "end ")
    ws.write_string(2, 0, "plain after rich")
    wb.close()


def refunds():
    wb = book("refunds.xlsx")
    ws = wb.add_worksheet("Refunds")
    pad, money = wb.add_format({"num_format": "00000"}), wb.add_format({"num_format": "#,##0.00"})
    ws.write_row(0, 0, C.REFUND_HEADER)
    for i, r in enumerate(C.REFUNDS, 1):
        ws.write_string(i, 0, r[0])
        ws.write_number(i, 1, r[1], pad)
        ws.write_string(i, 2, r[2])
        ws.write_number(i, 3, r[3], money)
        ws.write_number(i, 4, r[4], money)
        ws.write_string(i, 5, r[5])
    ws.autofilter(0, 0, len(C.REFUNDS), 5)
    wb.close()


def extras():
    """A table (ListObject), hyperlinks, a comment, array formulas, row 1000 and the last column (XFD), a long string and a
    literal `_x000D_` text (XlsxWriter escapes it as `_x005F_x000D_`)."""
    wb = book("extras.xlsx")
    ws = wb.add_worksheet("Extras")
    ws.add_table("A1:C4", {"columns": [{"header": "Txn"}, {"header": "Amount"}, {"header": "Total"}],
                           "data": [["t1", 10.2], ["t2", 64.1], ["t3", 2153.93]]})
    ws.write_url("E1", "https://example.com/refunds?id=1&x=2", string="the link")
    ws.write_url("E2", "https://example.com/bare")
    ws.write_string("E3", "has a comment")
    ws.write_comment("E3", "a note")
    ws.write_array_formula("F1:F1", "{=SUM(B2:B4*1)}", None, 2228.23)
    ws.write_string("G1", "_x000D_ literal")
    ws.write_string("H1", "x" * 32767)
    ws.write_string("A1000", "row 1000")
    ws.write_number("B1000", 1234567890123)
    # The last column, on a sheet of one row (the reference holds every cell up to the last).
    far = wb.add_worksheet("LastColumn")
    far.write_number("XFD1", 1)
    far.write_string("A1", "first")
    wb.close()


strings("strings.xlsx")
strings("strings-inline.xlsx", constant_memory=True)
numbers()
dates(False)
dates(True)
types()
layout()
many()
richtext()
refunds()
extras()
