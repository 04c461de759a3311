"""What every Python and (by content.json) Perl and Node writer puts in its workbooks: one list."""
import datetime

STRINGS = [
    "plain",
    "  leading and trailing spaces  ",
    "中文 漢字 日本語のテキスト 한국어",
    "emoji 💳💶🧾 and 👩‍💻",
    "עברית العربية",
    "combining: e\u0301 a\u0308 n\u0303",
    "line one\r\nline two",
    "line one\nline two",
    "tab\there",
    "<xml> & \"quotes\" 'apostrophes'",
    "0012345",
    "=not a formula",
    "10.2",
    "plain",
    "_x000D_ written as text, not an escape",
    "ends with a line break\n",
    "   ",
]

NUMBERS = [
    (10.2, "General"),
    (2153.93, "General"),
    (64.1, "0.00"),
    (0.125, "General"),
    (-42.5, "#,##0.00"),
    (1234567.891, "#,##0.00"),
    (1234, "00000"),
    (42, "@"),
    (7, "0"),
    (0.5, "0%"),
    (0.1234, "0.00%"),
    (1999.99, '"$"#,##0.00'),
    (123456789012, "0"),
    (1234567890123456, "0"),
    (12345678901234567890, "General"),
    (1e-7, "General"),
    (1.5e20, "0.00E+00"),
]

DATES = [
    (datetime.date(2026, 11, 20), "yyyy-mm-dd"),
    (datetime.datetime(2026, 11, 20, 13, 45, 30), "yyyy-mm-dd hh:mm:ss"),
    (datetime.date(1999, 12, 31), "dd/mm/yyyy"),
    (datetime.date(1904, 1, 2), "yyyy-mm-dd"),
    (datetime.datetime(2024, 2, 29, 23, 59, 59), "mm/dd/yyyy hh:mm"),
]

TITLE = "Refunds November 2026"
# Rows from row 3 (one empty row after the third; one empty column after the second).
LAYOUT_ROWS = [
    ["transaction_id", "order_no", "amount", "note"],
    ["txn_001", "A-1", 10.5, "one"],
    ["txn_002", "A-2", 20.25, "two (hidden row)"],
    ["txn_003", "A-3", 30, None],
    ["txn_004", "A-4", 40.75, "four"],
]
MANY = 12

REFUND_HEADER = ["Transaction ID", "Order No.", "Currency", "Amount", "Refund Amount", "Reason"]
REFUNDS = [
    ("txn_3Nf8a21bC0", 1234, "USD", 10.2, 10.2, "Customer request"),
    ("txn_3Nf8a21bC1", 1235, "USD", 2153.93, 153.93, "Duplicate charge"),
    ("txn_3Nf8a21bC2", 401, "EUR", 64.1, 64.1, "Produit défectueux"),
    ("txn_3Nf8a21bC3", 99120, "JPY", 5000, 1200, "返品"),
    ("txn_3Nf8a21bC4", 7, "GBP", 0.3, 0.1, " Fraudulent "),
    ("txn_3Nf8a21bC5", 88001, "USD", 19.99, 19.99, "Order cancelled"),
    ("txn_3Nf8a21bC6", 88002, "USD", 1000000.01, 0.01, "Goodwill"),
    ("txn_3Nf8a21bC7", 88003, "EUR", 33.33, 11.11, "Partial: item 1 of 3"),
]


def as_json():
    """The same lists for the Perl and Node writers (dates as ISO 8601 text, no time zone)."""
    import json

    def iso(v):
        return v.isoformat() if isinstance(v, (datetime.date, datetime.datetime)) else v

    return json.dumps(
        {
            "strings": STRINGS,
            # A 20-digit id is no exact double: written as its text, each writer makes it a double.
            "numbers": [[str(v) if isinstance(v, int) and v > 2**53 else v, f] for v, f in NUMBERS],
            "dates": [[iso(v), f] for v, f in DATES],
            "title": TITLE,
            "layoutRows": LAYOUT_ROWS,
            "many": MANY,
            "refundHeader": REFUND_HEADER,
            "refunds": [list(r) for r in REFUNDS],
        },
        ensure_ascii=False,
        indent=1,
    )


if __name__ == "__main__":
    print(as_json())
