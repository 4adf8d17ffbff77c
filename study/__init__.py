"""The SOP-fidelity study's face: its version. Its parts are packages of their role (the session
log's format, the preregistration's readers, the FSM, the simulator, the runtime adapters, the
runner, the preregistration check, the commands), layered as docs/architecture.md shows; at the
top of study/ there are only this module, ``errors.py`` and ``paths.py``. See README.md."""

__version__ = "0.1.0"
