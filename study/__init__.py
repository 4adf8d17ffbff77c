"""The SOP-fidelity study: driver, conditions, session runner, FSM runtime, simulator and
preregistration check. See README.md and docs/contracts.md."""

__version__ = "0.1.0"
