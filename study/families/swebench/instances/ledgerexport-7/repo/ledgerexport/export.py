"""Writing pages of records as CSV files."""

import csv
from pathlib import Path

from .paging import paginate

COLUMNS = ("date", "account", "amount", "memo")


def write_page(records, path):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        for record in records:
            writer.writerow({column: record.get(column, "") for column in COLUMNS})


def export_pages(records, per_page, directory):
    """Write ``records`` as ``page-0001.csv``, ... in ``directory``; return the files written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for number, page in enumerate(paginate(records, per_page), start=1):
        path = directory / f"page-{number:04d}.csv"
        write_page(page, path)
        written.append(path)
    return written
