"""The preregistration's readers: its files (conditions, limits, models, plan, texts), typed.
Layer 2: may import the foundations and layer 1 (docs/architecture.md).

What the runner, the analysis and power all read, so none of them imports another to learn what
the plan says.

Module map:
    conditions  conditions.yaml: the preregistered and exploratory conditions, the shared CLI settings
    limits      limits.yaml: a session's external limits, with overrides for tests
    models      models.yaml: aliases, endpoints, list prices, API keys; ``sim:<policy>``; ``Usage`` and ``price_usage``
    texts       texts/: where the frozen texts are, and ``fill`` (a template's placeholders)
    cost_text   how a cost is printed (a simulated one says what it is priced as)
    amendments  amendments.jsonl: the recorded amendments as typed records; ``shown`` escapes them for printing
    yaml_lines  the one YAML loader of the package: under limits, keeping the line of every key and item
    yaml_file   one YAML file of the preregistration read, its absence or bad YAML as the reader's error
    problems    a file's problems by line, and ``WorkflowError`` (the workflow's and the task manifest's error)
    preregistered  the preregistered study's task and development seed, by name (a foundation: it imports nothing)
"""
