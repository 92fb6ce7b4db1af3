"""The radiotherapy chat (/radiotherapist-chat): a text conversation kept on the server."""
