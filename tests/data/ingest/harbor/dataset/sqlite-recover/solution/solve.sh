#!/bin/bash
sqlite3 /data/orders.db ".recover" | sqlite3 /tmp/fixed.db
sqlite3 -header -csv /tmp/fixed.db "SELECT id, customer, total_cents, created_at FROM orders ORDER BY id" > /data/recovered.csv
