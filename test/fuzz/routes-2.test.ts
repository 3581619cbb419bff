/** Hostile input over every route (route-fuzz.ts), part 2 of 2: the parts run side by side. */
import { fuzzRoutes } from './route-fuzz.ts';

fuzzRoutes(1, 2);
