'use strict';
// --event-loop-turn-timeout takes 0 (off) or a positive integer of
// milliseconds, on the command line and in NODE_OPTIONS; anything else stops
// startup.
require('../common');
const { checkBudgetOption } = require('../common/cure');

checkBudgetOption('--event-loop-turn-timeout', 'getEventLoopTurnTimeout');
