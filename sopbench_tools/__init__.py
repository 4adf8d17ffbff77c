"""What a SOP-Bench task is and serves: fourteen tasks' data, manifests, tools and MCP server.
Layer 3: may import the foundations and layers 1-2 (docs/architecture.md).

The vendored task folders (CC BY-NC 4.0; see ``data/SOURCE.md``), their manifests, and the tools
an agent sees, served over MCP.

What the study makes of a task (its procedure, texts and escape routes) is ``study.procedure``'s.
"""
