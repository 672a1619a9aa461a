import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/**
 * Paths redacted from every log line. Secret material must never be logged in the first place;
 * this is the safety net for a careless `log.info({ payload })`.
 */
export const REDACT_PATHS = [
  'seedHex',
  '*.seedHex',
  'encryptedSeedHex',
  '*.encryptedSeedHex',
  'privateKey',
  '*.privateKey',
  'mnemonic',
  '*.mnemonic',
  'password',
  '*.password',
  'JWT',
  '*.JWT',
  'jwt',
  '*.jwt',
  'config.starterNativeSeed',
  'config.smsProviderApiKey',
  'config.wyreApiKey',
  'config.wyreSecretKey',
];

export function createLogger(level: LogLevel, bindings: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { pid: process.pid, ...bindings }, redact: { paths: REDACT_PATHS, censor: '<redacted>' } });
}
