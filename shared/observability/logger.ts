/** The service's one structured logger (Powertools), JSON lines on stdout / CloudWatch. */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: 'compliance-service' });
