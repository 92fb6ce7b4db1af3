"""Every route of the AI assistant: live consoles, summaries, radiotherapy chat."""

from __future__ import annotations

from fastapi import APIRouter

from cara.chat.endpoints import router as chat_router
from cara.live.endpoints import router as live_router
from cara.summaries.endpoints import router as summaries_router

router = APIRouter()
router.include_router(live_router)
router.include_router(summaries_router)
router.include_router(chat_router)
