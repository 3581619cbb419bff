/**
 * The service's one structured logger: Powertools' Logger (JSON lines on stdout, CloudWatch on AWS,
 * level from POWERTOOLS_LOG_LEVEL), with the keys of the current unit of work (scope.ts) in every line:
 * the Lambda context under Powertools' own names, and `correlation_id`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { EVENT_SOURCE } from '../events/envelope.ts';
import { currentScope } from './scope.ts';

const powertools = new Logger({ serviceName: EVENT_SOURCE });

type Attributes = Readonly<Record<string, unknown>>;
type Level = 'debug' | 'info' | 'warn' | 'error';

/** The keys of the current unit of work, then the line's own. */
function line(level: Level) {
  return (message: string, attributes: Attributes = {}): void => {
    const scope = currentScope();
    powertools[level](message, {
      ...scope?.invocation,
      ...(scope?.correlationId === undefined ? {} : { correlation_id: scope.correlationId }),
      ...attributes,
    });
  };
}

export const logger = {
  debug: line('debug'),
  info: line('info'),
  warn: line('warn'),
  error: line('error'),
};
