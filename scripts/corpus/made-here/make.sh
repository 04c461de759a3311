#!/bin/sh
# The made-here corpus: workbooks this machine's spreadsheet programs and writer libraries make,
# committed in test/fixtures/corpus/made-here/<writer>/ with FILE.expected.json beside each.
#   sh scripts/corpus/made-here/make.sh [NODE_MODULES_DIR]
# Needs: LibreOffice 7.4 (soffice), gnumeric's ssconvert, Debian's python3 with openpyxl and
# python3-xlsxwriter, libexcel-writer-xlsx-perl, and exceljs, xlsx and write-excel-file installed
# by npm in a scratch folder outside the repository (default /work/scratch-writers/node_modules;
# never a payops dependency). A writer that is not installed is skipped, and said so.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT="$ROOT/test/fixtures/corpus/made-here"
MODULES=${1:-/work/scratch-writers/node_modules}
PY=/usr/bin/python3
rm -rf "$OUT"
mkdir -p "$OUT"
CONTENT=$(mktemp)
trap 'rm -f "$CONTENT"' EXIT
"$PY" "$HERE/content.py" >"$CONTENT"

"$PY" "$HERE/openpyxl_made.py" "$OUT"
"$PY" -c 'import xlsxwriter' 2>/dev/null && "$PY" "$HERE/xlsxwriter_made.py" "$OUT" || echo "skipped: XlsxWriter"
perl -MExcel::Writer::XLSX -e1 2>/dev/null && perl "$HERE/excel-writer-xlsx_made.pl" "$CONTENT" "$OUT" || echo "skipped: Excel::Writer::XLSX"
for w in exceljs sheetjs write-excel-file; do
  node "$HERE/${w}_made.mjs" "$CONTENT" "$OUT" "$MODULES" || echo "skipped: $w"
done
command -v soffice >/dev/null && sh "$HERE/libreoffice_made.sh" "$OUT" || echo "skipped: LibreOffice"
command -v ssconvert >/dev/null && sh "$HERE/gnumeric_made.sh" "$OUT" || echo "skipped: gnumeric"

"$PY" "$ROOT/scripts/corpus/expected.py" "$OUT"
"$PY" "$HERE/manifest.py" "$OUT" "$MODULES" >"$ROOT/test/fixtures/corpus/made-here.json"
