'use strict';
// A read abandoned past its budget owns its buffer's memory until it
// returns, even when nothing else refers to the buffer: filehandle.read()
// keeps nothing alive on its own once its promise is rejected. Here the
// buffer becomes garbage, GC runs, fresh buffers of the same size are
// allocated (they would take its memory if it had been freed), and only
// then does data arrive for the abandoned read, which writes it into the
// buffer it was given. The fresh buffers must be untouched.
require('../common');
const cure = require('../common/cure');

const kSize = 64 * 1024;

cure.runWithAbandonedFifoRead(__filename, async (fifo) => {
  const fh = await cure.abandonFifoRead(
    fifo, (fh) => fh.read(Buffer.alloc(kSize), 0, kSize, null));
  // The buffer is garbage now.
  await cure.checkLateReadLandsInItsBuffers(fh, kSize, 1);
});
