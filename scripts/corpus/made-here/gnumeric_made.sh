#!/bin/sh
# Workbooks written by gnumeric's ssconvert for the made-here corpus: OUT/gnumeric/*.xlsx.
#   sh scripts/corpus/made-here/gnumeric_made.sh OUT
# ssconvert saves as .xlsx (its Gnumeric_Excel:xlsx2 exporter) a CSV (refunds, strings), the flat
# ODS files written for LibreOffice (rich text, 1904), and openpyxl's workbooks (OUT/openpyxl,
# made first by make.sh), which it computes and saves again.
set -eu
OUT=$1
HERE=$(dirname "$0")
DEST="$OUT/gnumeric"
mkdir -p "$DEST"
conv() { ssconvert --export-type=Gnumeric_Excel:xlsx2 "$1" "$DEST/$2" >/dev/null 2>&1; }
conv "$HERE/refunds.csv" refunds-from-csv.xlsx
conv "$HERE/strings.csv" strings-from-csv.xlsx
conv "$HERE/richtext.fods" richtext.xlsx
conv "$HERE/richtext-1904.fods" richtext-1904.xlsx
for f in strings numbers dates dates-1904 types layout many-sheets refunds; do
  conv "$OUT/openpyxl/$f.xlsx" "$f-resaved.xlsx"
done
