#!/bin/sh
# Workbooks written by LibreOffice (headless) for the made-here corpus: OUT/libreoffice/*.xlsx.
#   sh scripts/corpus/made-here/libreoffice_made.sh OUT
# LibreOffice saves as .xlsx: a CSV export (refunds, strings), a flat ODS written here (rich text
# runs, typed cells, a formula, a 1904 calendar), and openpyxl's workbooks (OUT/openpyxl, made
# first by make.sh) opened and saved again — LibreOffice computes their formulas when it loads
# them and writes its own styles, shared strings and sheet states.
set -eu
OUT=$1
HERE=$(dirname "$0")
DEST="$OUT/libreoffice"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$DEST" "$TMP/in"
lo() { soffice --headless "-env:UserInstallation=file://$TMP/profile" --convert-to "$@" >/dev/null 2>&1; }

cp "$HERE/refunds.csv" "$TMP/in/refunds-from-csv.csv"
cp "$HERE/strings.csv" "$TMP/in/strings-from-csv.csv"
# CSV import: comma, double quote, UTF-8 (76), first line 1, columns detected (numbers typed).
lo 'xlsx:Calc MS Excel 2007 XML' --infilter='CSV:44,34,76,1' --outdir "$DEST" "$TMP/in/refunds-from-csv.csv" "$TMP/in/strings-from-csv.csv"
lo 'xlsx:Calc MS Excel 2007 XML' --outdir "$DEST" "$HERE/richtext.fods" "$HERE/richtext-1904.fods"
for f in strings numbers dates dates-1904 types layout many-sheets refunds; do
  cp "$OUT/openpyxl/$f.xlsx" "$TMP/in/$f-resaved.xlsx"
done
lo 'xlsx:Calc MS Excel 2007 XML' --outdir "$DEST" "$TMP"/in/*-resaved.xlsx
