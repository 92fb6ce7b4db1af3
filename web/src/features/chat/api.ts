/** POST /api/radiotherapy-chat/messages: one question, the whole conversation back. */
import { api, errorMessage } from '@/lib/api/client';
import { NETWORK_FAILED } from '@/lib/api/messages';
import type { components } from '@/lib/api/schema';

export type ChatTurn = components['schemas']['ChatTurn'];
export type ChatReply = components['schemas']['ChatReplyOut'];

// The server gives the model 60 s; the browser waits a little longer for its answer.
const CHAT_TIMEOUT_MS = 75_000;
export const CHAT_FAILED = 'The assistant could not answer. Please try again.';

export class ChatError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'ChatError';
    }
}

export const sendChatMessage = async (message: string, chatId: string | null): Promise<ChatReply> => {
    const controller = new AbortController();
    const timer = window.setTimeout(() => controller.abort(), CHAT_TIMEOUT_MS);
    try {
        const { data, error } = await api.POST('/api/radiotherapy-chat/messages', {
            body: { message, chatId },
            signal: controller.signal,
        });
        if (data && typeof data.reply === 'string') return data;
        throw new ChatError(errorMessage(error, CHAT_FAILED));
    } catch (error) {
        if (error instanceof ChatError) throw error;
        throw new ChatError(controller.signal.aborted ? CHAT_FAILED : NETWORK_FAILED);
    } finally {
        window.clearTimeout(timer);
    }
};
