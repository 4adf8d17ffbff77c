"""Export ledger records to CSV files, a page of records per file."""

from .export import export_pages, write_page
from .paging import page_count, paginate

__all__ = ["export_pages", "page_count", "paginate", "write_page"]
