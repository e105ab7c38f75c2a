import csv
rows = list(csv.DictReader(open("/data/recovered.csv")))
assert len(rows) >= 950
assert [int(r["id"]) for r in rows] == sorted(int(r["id"]) for r in rows)
