#!/usr/bin/env bash
# The PEER as a shell script really writes it: for each CSV row, sign the body with openssl and
# POST it with curl — a few process starts and a fresh connection per order.
#   bench/per-order.sh FILE BASE_URL LIMIT      (prints one JSON line: requests, succeeded, ms)
# Simple CSV only (no quoted commas): the bench generates its files that way.
set -euo pipefail
file=$1 base=$2 limit=$3
key=${PAYOPS_SIGN_KEY:-sandbox-sign-key}
mid=${PAYOPS_MERCHANT_ID:-800001}
aid=${PAYOPS_ACCOUNT_ID:-800001001}
ok=0 n=0
start=$(date +%s%N)
while IFS=, read -r tid ono cur amt ramt reason; do
  # design.md §1.1: pairs sorted by path, joined by &.
  canon="account_id=$aid&merchant_id=$mid&refund_orders[0].amount=$amt&refund_orders[0].currency=$cur"
  canon+="&refund_orders[0].order_no=$ono&refund_orders[0].refund_amount=$ramt"
  canon+="&refund_orders[0].refund_reason=$reason&refund_orders[0].transaction_id=$tid"
  sig=$(printf '%s' "$canon" | openssl dgst -sha256 -hmac "$key" -r | cut -d' ' -f1)
  body="{\"merchant_id\":\"$mid\",\"account_id\":\"$aid\",\"encryption_data\":\"$sig\",\"refund_orders\":[{\"transaction_id\":\"$tid\",\"order_no\":\"$ono\",\"currency\":\"$cur\",\"amount\":\"$amt\",\"refund_amount\":\"$ramt\",\"refund_reason\":\"$reason\"}]}"
  reply=$(curl -sS -X POST -H 'content-type: application/json' --data "$body" "$base/v1/refund")
  n=$((n + 1))
  case $reply in *'"refund_status":"1"'*) ok=$((ok + 1)) ;; esac
done < <(tail -n +2 "$file" | head -n "$limit")
end=$(date +%s%N)
printf '{"requests":%d,"succeeded":%d,"ms":%d}\n' "$n" "$ok" $(((end - start) / 1000000))
