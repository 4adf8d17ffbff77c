import csv

from ledgerexport import export_pages


def test_export_writes_one_file_per_page(tmp_path):
    records = [{"date": "2024-01-0%d" % day, "account": "cash", "amount": str(day)} for day in range(1, 5)]
    files = export_pages(records, 2, tmp_path)
    assert [path.name for path in files] == ["page-0001.csv", "page-0002.csv"]
    with open(files[1], newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["amount"] for row in rows] == ["3", "4"]
