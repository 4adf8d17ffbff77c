"""Each runtime's own transcript, read as one conversation form (turns) for the viewer and the
exports. Reading only: nothing here starts or imports an agent runtime."""
