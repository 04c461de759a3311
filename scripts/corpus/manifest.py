#!/usr/bin/python3
"""test/fixtures/corpus/sources.json: where each corpus workbook comes from, and what payops must do.

    /usr/bin/python3 scripts/corpus/manifest.py CORPUS_DIR MIRROR_DIR > test/fixtures/corpus/sources.json

CORPUS_DIR holds the files as <owner>__<repo>/<path in that repository>; MIRROR_DIR the bare git
snapshots of those repositories as <owner>+<repo>/repo (the commit recorded is the snapshot's
HEAD, from which scripts/corpus/gather.sh copies the files again). The writer is docProps/app.xml's
<Application>; a file without one says so. REFUSED and RULES below are the per-file expectations
(corpus.test.ts): the cause a refusal must name, and cells that differ by a rule with why.
"""

import json
import os
import re
import subprocess
import sys
import zipfile

LICENCES = {
    "jmcnamara/XlsxWriter": "BSD-2-Clause",
    "tafia/calamine": "MIT",
    "PHPOffice/PhpSpreadsheet": "MIT",
    "qax-os/excelize": "BSD-3-Clause",
    "exceljs/exceljs": "MIT",
    "roo-rb/roo": "MIT",
    "tealeg/xlsx": "BSD-3-Clause",
}

# The refusal each file must get: its true cause (a substring of payops's message).
REFUSED = {
    "qax-os__excelize/test/encryptAES.xlsx": "the workbook is protected by a password",
    "tafia__calamine/tests/pass_protected.xlsx": "the workbook is protected by a password",
    "tafia__calamine/tests/pass_protected.xlsb": "the workbook is protected by a password",
    "tafia__calamine/tests/issue_666_lost_sheets.xlsb": ".xlsb is not supported: save as .xlsx",
    "tafia__calamine/tests/date.xls": "is an Excel 97-2003 workbook (.xls)",
    "roo-rb__roo/test/files/type_excel.xlsx": "is an Excel 97-2003 workbook (.xls)",
    # A text file named .xls: the bulk reader reads it as CSV text, not as a workbook.
    "tafia__calamine/tests/too_small.xls": "not a workbook",
    "roo-rb__roo/test/files/type_openoffice.xlsx": "it is an OpenDocument file (.ods)",
    "roo-rb__roo/test/files/type_openoffice.xlsm": "it is an OpenDocument file (.ods)",
    # Two parts only: a sheet and the workbook's relationships, no workbook part.
    "exceljs__exceljs/spec/integration/data/missing-bits.xlsx": "a ZIP file without a workbook in it",
    # The workbook links xl/sharedStrings.xml, which the ZIP does not hold (openpyxl refuses it too).
    "roo-rb__roo/test/files/implicit_coordinates.xlsx": "its shared strings (xl/sharedStrings.xml",
    # A damaged ZIP entry (calamine's test of a bad CRC; openpyxl refuses it too).
    "tafia__calamine/tests/issue252.xlsx": "xl/_rels/workbook.xml.rels",
    # The workbook names a sheet whose part is not in the ZIP.
    "tealeg__xlsx/testdocs/badfile_noWorksheets.xlsx": "the sheet Tabelle1 is missing from the file",
    # No xl/_rels/workbook.xml.rels: the sheets named cannot be found (LibreOffice guesses the
    # parts by their usual names; payops does not guess which part is which sheet).
    "tealeg__xlsx/testdocs/badfile_noWorkbookRels.xlsx": "the workbook names the sheet Tabelle1, but does not say where its cells are",
    # `<sheets></sheets>`: the workbook lists no sheet (LibreOffice shows a new empty Sheet1).
    "qax-os__excelize/test/BadWorkbook.xlsx": "has no sheet with cells",
}

# Cells that differ by a rule, not a bug: "file" → {"Sheet!C7": why}.
NOT_WELL_FORMED = (
    "the sheet part is not well-formed XML (the text 'foo' before its root element): openpyxl refuses "
    "the file and LibreOffice reads the sheet as empty; payops reads the cells the sheet holds"
)
RULES = {
    "exceljs__exceljs/spec/integration/data/invalid-xml.xlsx": {
        "Sheet1!A1": NOT_WELL_FORMED,
        "Sheet1!B1": NOT_WELL_FORMED,
    },
}


def app_of(path):
    try:
        z = zipfile.ZipFile(path)
    except Exception:  # noqa: BLE001 - not a ZIP: the first bytes tell
        with open(path, "rb") as fh:
            head = fh.read(4)
        return "OLE2 compound file (not a ZIP)" if head == b"\xd0\xcf\x11\xe0" else "not a ZIP"
    names = {n.replace("\\", "/").lower(): n for n in z.namelist()}

    def text(name):
        return z.read(names[name]).decode("utf-8", "replace") if name in names else ""

    app = text("docprops/app.xml")
    m = re.search(r"<(?:\w+:)?Application>([^<]*)<", app)
    v = re.search(r"<(?:\w+:)?AppVersion>([^<]*)<", app)
    if m and m.group(1).strip():
        return m.group(1) + (f" {v.group(1)}" if v else "")
    # No application named: the writer's marks, where they are unmistakable.
    wb = text("xl/workbook.xml")
    if "urn:schemas-microsoft-com:mac:vml" in wb and "docprops/app.xml" not in names:
        return "Google Sheets (by its marks: no docProps, the mx/mv namespaces on the workbook)"
    if "xl/worksheets/sheet.xml" in names and app:
        return "Apple Numbers (by its marks: a sheet part named xl/worksheets/sheet.xml, app.xml naming no application)"
    creator = re.search(r"<dc:creator>([^<]*)<", text("docprops/core.xml"))
    if creator and re.search(r"openpyxl|phpspreadsheet|phpexcel|xlsxwriter|excelize|exceljs|apache poi|rubyxl|axlsx", creator.group(1), re.I):
        return f"unknown application; core.xml creator {creator.group(1)!r}"
    return "unknown (docProps/app.xml names no application)" if app else "unknown (no docProps/app.xml)"


def main(corpus, mirrors):
    files = []
    heads = {}
    for dp, _, fn in os.walk(corpus):
        for f in fn:
            if f.endswith(".expected.json"):
                continue
            rel = os.path.relpath(os.path.join(dp, f), corpus)
            src, path = rel.split("/", 1)
            owner, name = src.split("__", 1)
            repo = f"{owner}/{name}"
            if repo not in heads:
                heads[repo] = subprocess.run(
                    ["git", "-C", os.path.join(mirrors, f"{owner}+{name}", "repo"), "rev-parse", "HEAD"],
                    capture_output=True, text=True, check=True,
                ).stdout.strip()
            entry = {
                "file": rel,
                "repo": repo,
                "path": path,
                "commit": heads[repo],
                "licence": LICENCES[repo],
                "writer": app_of(os.path.join(dp, f)),
            }
            exp = os.path.join(dp, f) + ".expected.json"
            if os.path.exists(exp):
                with open(exp, encoding="utf-8") as fh:
                    e = json.load(fh)
                entry["reference"] = e.get("reader")
                if "error" in e:
                    entry["referenceError"] = e["error"]
            if rel in REFUSED:
                entry["refused"] = REFUSED[rel]
            if rel in RULES:
                entry["ruleDifferences"] = RULES[rel]
            files.append(entry)
    files.sort(key=lambda e: e["file"])
    json.dump({"files": files}, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
