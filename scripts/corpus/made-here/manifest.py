#!/usr/bin/python3
"""test/fixtures/corpus/made-here.json: the made-here corpus's files, their writer and version.

    /usr/bin/python3 scripts/corpus/made-here/manifest.py MADE_HERE_DIR NODE_MODULES_DIR > test/fixtures/corpus/made-here.json

Every file was made on this machine by make.sh (ours: the project's MIT licence). The writer is the
program or library that wrote it, with its version, asked of it here; docProps/app.xml's
<Application> is recorded beside it. RULES names, per file, cells that differ by a rule (why).
"""
import json
import os
import re
import subprocess
import sys
import zipfile

root, modules = sys.argv[1], sys.argv[2]


def run(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
    except OSError:
        return ""


def npm(name):
    try:
        with open(os.path.join(modules, name, "package.json"), encoding="utf-8") as fh:
            return json.load(fh)["version"]
    except OSError:
        return "?"


def py(mod):
    return run("/usr/bin/python3", "-c", f"import {mod}; print({mod}.__version__)").strip() or "?"


lo = re.search(r"LibreOffice ([\d.]+)", run("soffice", "--version"))
gn = re.search(r"'([\d.]+)'", run("ssconvert", "--version"))
WRITERS = {
    "openpyxl": f"openpyxl {py('openpyxl')} (Debian python3-openpyxl)",
    "xlsxwriter": f"XlsxWriter {py('xlsxwriter')} (Debian python3-xlsxwriter)",
    "excel-writer-xlsx": "Excel::Writer::XLSX "
    + (run("perl", "-MExcel::Writer::XLSX", "-e", "print $Excel::Writer::XLSX::VERSION") or "?")
    + " (Debian libexcel-writer-xlsx-perl)",
    "exceljs": f"exceljs {npm('exceljs')} (npm)",
    "sheetjs": f"SheetJS xlsx {npm('xlsx')} (npm)",
    "write-excel-file": f"write-excel-file {npm('write-excel-file')} (npm)",
    "libreoffice": f"LibreOffice {lo.group(1) if lo else '?'} headless (Debian)",
    "gnumeric": f"gnumeric ssconvert {gn.group(1) if gn else '?'} (Debian)",
}

# Cells that differ by a rule, not a bug: "writer/file" → {"Sheet!C7": why}.
RULES = {}


def application(path):
    with zipfile.ZipFile(path) as z:
        try:
            app = z.read("docProps/app.xml").decode("utf-8", "replace")
        except KeyError:
            return "none (no docProps/app.xml)"
    m = re.search(r"<(?:\w+:)?Application>([^<]*)<", app)
    return m.group(1) if m else "none named"


files = []
for writer in sorted(os.listdir(root)):
    d = os.path.join(root, writer)
    if not os.path.isdir(d):
        continue
    for f in sorted(os.listdir(d)):
        if not f.endswith(".xlsx"):
            continue
        rel = f"{writer}/{f}"
        entry = {
            "file": rel,
            "repo": "made here",
            "path": f"test/fixtures/corpus/made-here/{rel}",
            "licence": "MIT (the project's own)",
            "writer": WRITERS[writer],
            "application": application(os.path.join(d, f)),
            "bytes": os.path.getsize(os.path.join(d, f)),
        }
        with open(os.path.join(d, f) + ".expected.json", encoding="utf-8") as fh:
            e = json.load(fh)
        entry["reference"] = e.get("reader")
        if "error" in e:
            entry["referenceError"] = e["error"]
        if rel in RULES:
            entry["ruleDifferences"] = RULES[rel]
        files.append(entry)
json.dump({"made": "scripts/corpus/made-here/make.sh", "files": files}, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
