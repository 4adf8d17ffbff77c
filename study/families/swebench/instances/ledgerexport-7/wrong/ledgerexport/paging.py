"""Cutting a list of records into pages."""


def page_count(total, per_page):
    """How many pages ``total`` records fill at ``per_page`` records a page."""
    if per_page < 1:
        raise ValueError(f"per_page must be at least 1, not {per_page}")
    return total // per_page + 1


def paginate(records, per_page):
    """The records as a list of pages, each a list of at most ``per_page`` records, in order."""
    records = list(records)
    return [records[number * per_page:(number + 1) * per_page]
            for number in range(page_count(len(records), per_page))]
