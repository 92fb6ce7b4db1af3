"""The live assistant: the browser's WebSocket relayed to Gemini Live, with transcripts."""
