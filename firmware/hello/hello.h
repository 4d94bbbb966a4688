/* hello.h: the "hello" program set. BRISC writes its value, then releases the
 * three TRISCs through the soft reset register; each TRISC writes its own value to
 * its own slot. All four then park (`j .`). tests/test_firmware.py checks the slots. */
#ifndef FIRMWARE_HELLO_H
#define FIRMWARE_HELLO_H

#include "tile.h"

#define HELLO_RESULTS 0x00020000u /* L1: 4 words, slot 0 brisc, slots 1..3 trisc0..2 */
#define HELLO_SLOT(i) TILE_REG32(HELLO_RESULTS + 4u * (i))

#define HELLO_BRISC_VALUE 0xB215C0DEu
#define HELLO_TRISC_VALUE(i) (0x7215C000u + (i))

#endif
