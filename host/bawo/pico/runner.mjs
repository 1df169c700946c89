// An emulated Raspberry Pi Pico for the Bawo Board: rp2040js running MicroPython's rp2 image
// from a flash file, with what the emulator lacks for this firmware added here (see
// ../../../../shared README facts, repeated in host/bawo/pico/README.md):
//   - a SPI NOR flash behind the SSI data register, chip select from IO_QSPI's SS override,
//     written through to the flash file byte by byte, so a kill at any instant leaves
//     exactly what was programmed (a half-programmed page included);
//   - USB CDC: the OUT endpoint is answered only when the host has bytes (the stock
//     emulator answers at once with an empty packet and MicroPython spins re-arming);
//   - machine.reset(): the watchdog trigger reboots in-process, keeping the flash;
//   - power cycles (cfg.usb_path): a cut powers the board off in-process, and `power_on`
//     boots a fresh RP2040 from the flash file, nothing else kept (no Node start-up again);
//   - the key matrix: a closed switch connects its column to its row, so the firmware's
//     own scan (row driven low, column read) must find it;
//   - the WS2812 data pin: edges timed in emulated nanoseconds, decoded to GRB bytes;
//   - speed: fastcore.mjs runs the commonest instructions (copies of rp2040js 1.4.1's code,
//     its version checked when it loads); cfg.fast = false runs rp2040js alone.
//
// Usage: node runner.mjs CONFIG_JSON
//   {"bootrom": path, "flash": path (2 MiB file), "usb_fd": 3, "rows": [...], "cols": [...],
//    "buttons": [...], "data_pin": 16, "realtime": false,
//    "usb_path": a unix socket to connect the USB to at each `power_on` (absent: a cut exits),
//    "flash_uid": the flash chip's 64-bit unique ID, 16 hex digits (absent: zeros),
//    "frame_bytes": false to report each LED frame's times without its bytes}
// Control: JSON lines on stdin, JSON lines on stdout (see host/bawo/pico/emulator.py).
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import readline from 'node:readline';
import { RP2040, USBCDC, GPIOPinState } from 'rp2040js';
import { fastCore, fastSRAM } from './fastcore.mjs';

const cfg = JSON.parse(process.argv[2]);
const FLASH_SIZE = 2 * 1024 * 1024;
const NS_PER_CYCLE = 8; // 125 MHz

const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
const flashFd = fs.openSync(cfg.flash, 'r+');
const bootrom = fs.readFileSync(cfg.bootrom);
const bootromWords = new Uint32Array(bootrom.buffer, bootrom.byteOffset, bootrom.length / 4);

let mcu = null;
let cdc = null;
let boots = 0;
let base = 0;             // emulated ns before this boot (each boot has a fresh clock)
const tnow = () => base + mcu.clock.nanos;

// ---------------------------------------------------------------------------------- flash
// The Pico's W25Q16JV takes time to erase and program, and says so in its status register's
// BUSY bit (typical times from its datasheet; the maximum is several times longer). A program
// or an erase starts when chip select rises after the command and is applied to the array
// progressively until it is done, so a power cut inside one leaves a page partly programmed
// (bytes in order, the byte under way with only some of its bits cleared: NOR bits only go
// 1 -> 0) or a block partly erased (the first part 0xFF, the rest as it was). Until it is
// done the chip ignores every command but reading the status.
const T_PAGE_PROGRAM = 400e3;                      // ns, 0.4 ms
// The chip's unique ID, read by command 0x4B (4 dummy bytes, then 8 bytes): what the
// pico-sdk's flash_get_unique_id reads at boot for machine.unique_id() (CircuitPython's
// microcontroller.cpu.uid too), so each flash file can be a board of its own.
const FLASH_UID = /^[0-9a-fA-F]{16}$/.test(cfg.flash_uid || '') ? Buffer.from(cfg.flash_uid, 'hex')
  : Buffer.alloc(8);
const T_ERASE = { 4096: 45e6, 32768: 120e6, 65536: 150e6 };

class NorFlash {
  constructor() {
    this.cs = false;      // true while chip select is forced low
    this.bytes = [];      // the current command's bytes
    this.rx = [];         // the SSI's receive FIFO
    this.wel = false;     // write enable latch
    this.writes = 0;
    this.busy = null;     // the program or erase under way: {cmd, addr, size|data, start, end}
  }
  attach(rp) {
    this.rp = rp;
    this.array = rp.flash;
    this.busy = null;     // a power-on: whatever was under way stopped with the power (cut())
  }
  csForce(outover) {
    // IO_QSPI SS_CTRL OUTOVER: 0 normal (the SSI drives it), 2 low, 3 high.
    const low = outover === 2;
    if (low && !this.cs) {
      this.cs = true;
      this.bytes = [];
    } else if (!low && this.cs) {
      this.cs = false;
      this.finish();
    }
  }
  persist(off, len) {
    if (off >= FLASH_SIZE) return;
    len = Math.min(len, FLASH_SIZE - off);
    fs.writeSync(flashFd, this.array, off, len, off);
  }
  // Apply the operation under way as far as it got at emulated time t (ns, this boot's clock);
  // done: all of it. Returns true when it is complete.
  progress(t, done) {
    const op = this.busy;
    if (!op) return true;
    const f = done || t >= op.end ? 1 : Math.max(0, (t - op.start) / (op.end - op.start));
    if (op.cmd === 0x02) {
      const n = op.data.length;
      const k = Math.floor(f * n);
      for (let i = op.applied; i < k; i++) this.array[op.addrs[i]] &= op.data[i];
      if (k < n && f < 1) {
        // The byte under way: the high half of the bits it clears are cleared.
        const a = op.addrs[k], clear = this.array[a] & ~op.data[k] & 0xff;
        this.array[a] &= ~(clear & 0xf0) & 0xff;
      }
      for (let i = op.applied; i < Math.min(k + 1, n); i++) this.persist(op.addrs[i], 1);
      op.applied = k;
    } else {
      const k = Math.floor(f * op.size);
      this.array.fill(0xff, op.addr + op.applied, op.addr + k);
      this.persist(op.addr + op.applied, k - op.applied);
      op.applied = k;
    }
    if (f < 1) return false;
    this.busy = null;
    this.wel = false;
    this.writes++;
    if (op.cmd === 0x02) {
      for (const addr of op.addrs) {
        if (this.erased && addr >= this.erased.addr && addr < this.erased.addr + this.erased.size) {
          if (++this.erased.done >= this.erased.size) this.erased = null;
        }
      }
      snapMaybe(false, 0x02);
    } else {
      // Until every byte of the block is programmed again, a cut leaves part of it erased.
      this.erased = { addr: op.addr, size: op.size, done: 0 };
      snapMaybe(snap.onErase, op.cmd);
    }
    return true;
  }
  // The power goes at emulated time t: what was under way stops where it got.
  cut(t) {
    const op = this.busy;
    if (!op) return null;
    this.progress(t, false);
    if (!this.busy) return null;
    this.busy = null;
    const done = Math.min(1, (t - op.start) / (op.end - op.start));
    if (op.cmd !== 0x02) return { cmd: op.cmd, addr: op.addr, size: op.size, done };
    // What a test needs to check the half-programmed page: each byte's address, what it
    // held and what was being programmed into it.
    return { cmd: op.cmd, addr: op.addr, done, addrs: op.addrs,
             old: Buffer.from(op.old).toString('hex'), data: Buffer.from(op.data).toString('hex') };
  }
  poll() {
    // Reading the status while busy: the ROM spins on it with interrupts off (MicroPython
    // programs and erases inside a critical section), so nothing else can happen on the core
    // until BUSY clears; the clock goes straight to the end instead of spinning there
    // (not past a power cut). With interrupts on, the core spins as it would.
    const op = this.busy;
    const clock = this.rp.clock;
    if (this.progress(clock.nanos, false)) return 0;
    if (this.rp.core.PM) {
      const stop = Math.min(op.end, cutAt >= 0 ? cutAt - base : Infinity);
      if (stop > clock.nanos) clock.tick(stop - clock.nanos);
      if (this.progress(clock.nanos, false)) return 0;
    }
    return 1;
  }
  exchange(byte) {
    // One byte out on the wire, one back.
    if (!this.cs) return 0;
    const b = this.bytes;
    b.push(byte & 0xff);
    const cmd = b[0];
    const n = b.length;
    if (this.busy && cmd !== 0x05 && cmd !== 0x35 && !this.progress(this.rp.clock.nanos, false)) {
      return 0xff; // busy: other commands are ignored
    }
    switch (cmd) {
      case 0x9f: // JEDEC ID: Winbond W25Q16 (2 MiB)
        return [0, 0xef, 0x40, 0x15][Math.min(n - 1, 3)];
      case 0x05: // status 1: BUSY, WEL
        if (n <= 1) return 0;
        return (this.busy ? this.poll() : 0) | (this.wel ? 2 : 0);
      case 0x35: // status 2: QE set
        return n > 1 ? 2 : 0;
      case 0x4b: // read unique ID: the command, 4 dummy bytes, then the 8 ID bytes
        return n >= 6 && n <= 13 ? FLASH_UID[n - 6] : 0;
      case 0x03: // read
      case 0x0b: { // fast read (one dummy byte)
        const skip = cmd === 0x0b ? 5 : 4;
        if (n <= skip) return 0;
        const addr = ((b[1] << 16) | (b[2] << 8) | b[3]) + (n - skip - 1);
        return this.array[addr & 0xffffff];
      }
      default:
        return 0;
    }
  }
  finish() {
    const b = this.bytes;
    this.bytes = [];
    if (!b.length) return;
    const cmd = b[0];
    if (this.busy && !this.progress(this.rp.clock.nanos, false)) return;
    const now = this.rp.clock.nanos;
    if (cmd === 0x06) {
      this.wel = true;
    } else if (cmd === 0x04) {
      this.wel = false;
    } else if ((cmd === 0x20 || cmd === 0x52 || cmd === 0xd8) && b.length >= 4 && this.wel) {
      const size = cmd === 0x20 ? 4096 : cmd === 0x52 ? 32768 : 65536;
      const addr = ((b[1] << 16) | (b[2] << 8) | b[3]) & ~(size - 1);
      this.busy = { cmd, addr, size, applied: 0, start: now, end: now + T_ERASE[size] };
      cutInside(this.busy);
    } else if (cmd === 0x02 && this.wel) {
      if (b.length <= 4) { this.wel = false; return; }
      // Page program: the data wraps inside its 256-byte page; a later byte for the same
      // address replaces an earlier one (the chip latches the last 256 bytes sent).
      const base = (b[1] << 16) | (b[2] << 8) | b[3];
      const latch = new Map();
      for (let i = 4; i < b.length; i++) latch.set((base & ~0xff) | ((base + i - 4) & 0xff), b[i]);
      const addrs = [...latch.keys()];
      this.busy = { cmd, addr: base, addrs, data: addrs.map((a) => latch.get(a)), applied: 0,
                    old: addrs.map((a) => this.array[a]), start: now, end: now + T_PAGE_PROGRAM };
      cutInside(this.busy);
    }
  }
}
let nor = new NorFlash();

// A test's power cut inside the next erase or program that starts after emulated time
// `after` (of command `cmd` only, if given), `frac` of the way through it (a random instant
// rarely falls inside a 0.4 ms program).
let cutOnOp = null;
function cutInside(op) {
  if (!cutOnOp || base + op.start < cutOnOp.after || (cutOnOp.cmd != null && op.cmd !== cutOnOp.cmd)) return;
  cutAt = base + op.start + Math.floor(cutOnOp.frac * (op.end - op.start));
  cutOnOp = null;
}

// Power-cut images without stopping the board: while armed, after a flash write (a byte
// programmed or a sector erased) the flash file is copied with probability p, i.e. exactly
// what a power cut at that instant would leave (tests boot some of them, read the rest).
// on_erase: also right after every erase, the worst instant of a block's rewrite.
const newSnap = () => ({ p: 0, seed: 1, dir: null, n: 0, max: 0, onErase: false });
let snap = newSnap();
function snapMaybe(force, cmd) {
  if (!snap.dir || snap.n >= snap.max) return;
  snap.seed = (Math.imul(snap.seed, 1103515245) + 12345) >>> 0;
  if (!force && (snap.seed >>> 8) / 16777216 >= snap.p) return;
  const path = `${snap.dir}/snap-${snap.n++}.bin`;
  fs.copyFileSync(cfg.flash, path);
  out({ ev: 'snap', t: tnow(), writes: nor.writes, path, cmd: cmd == null ? null : cmd,
        erased: nor.erased ? [nor.erased.addr, nor.erased.size, nor.erased.done] : null });
}

const SSI_SR = 0x28, SSI_DR0 = 0x60, SSI_SSIENR = 0x08, SSI_RXFLR = 0x24, SSI_TXFLR = 0x20;
let ssiRead = null, ssiWrite = null;   // rp2040js' own (its SSI class's)
function ssiReadUint32(offset) {
  if (offset === SSI_DR0) return nor.rx.length ? nor.rx.shift() : 0;
  if (offset === SSI_SR) return 0x2 | 0x4 | (nor.rx.length ? 0x8 : 0); // TFNF, TFE, RFNE
  if (offset === SSI_RXFLR) return nor.rx.length;
  if (offset === SSI_TXFLR) return 0;
  return ssiRead.call(this, offset);
}
function ssiWriteUint32(offset, value) {
  if (offset === SSI_DR0) {
    const r = nor.exchange(value);
    if (nor.rx.length < 16) nor.rx.push(r);
    return;
  }
  if (offset === SSI_SSIENR && !(value & 1)) nor.rx.length = 0; // disabling clears the FIFOs
  ssiWrite.call(this, offset, value);
}
// IO_QSPI: only SS_CTRL (offset 0x0c) matters; the other registers read as 0.
let ioqRegs = new Map();
const ioqReadUint32 = (offset) => ioqRegs.get(offset) || 0;
function ioqWriteUint32(offset, value) {
  ioqRegs.set(offset, value >>> 0);
  if (offset === 0x0c) nor.csForce((value >>> 8) & 3);
}
function patchSSI(rp) {
  const ssi = rp.peripherals[0x18000];
  ssiRead = Object.getPrototypeOf(ssi).readUint32;
  ssiWrite = Object.getPrototypeOf(ssi).writeUint32;
  ssi.readUint32 = ssiReadUint32;
  ssi.writeUint32 = ssiWriteUint32;
  const ioq = rp.peripherals[0x40018];
  ioqRegs = new Map();
  ioq.readUint32 = ioqReadUint32;
  ioq.writeUint32 = ioqWriteUint32;
}

// The memories and the core object of every RP2040 this process builds are the same JS objects
// (the first machine's): each new machine's, as rp2040js makes them (SRAM zeroed, flash erased,
// every field of the core as constructed), is copied into them and the machine is pointed at
// them before it runs. Nothing of the last machine stays in them (the tests compare a power-on
// here with a new process's, SRAM and core included); what V8 compiled against them stays valid,
// which is the point: the fast core's accesses to them are constants.
let memories = null;
function adoptMemories(rp) {
  if (!memories) {
    const sram = new Uint8Array(rp.sram.length), flash = new Uint8Array(rp.flash.length);
    memories = { sram, sramView: new DataView(sram.buffer), flash, flash16: new Uint16Array(flash.buffer),
                 flashView: new DataView(flash.buffer), bootrom: new Uint32Array(rp.bootrom.length),
                 registers: new Uint32Array(rp.core.registers.length), core: rp.core };
  }
  const m = memories;
  m.sram.set(rp.sram);
  m.flash.set(rp.flash);
  m.bootrom.set(rp.bootrom);
  m.registers.set(rp.core.registers);
  if (rp.core !== m.core) {
    const fresh = rp.core;
    // Every field a new core has (its class keeps no other state); the one field the runner adds
    // (executeInstruction, fastCore) is put back by fastCore at each boot.
    for (const k of Object.keys(m.core)) {
      if (!(k in fresh) && !(k === 'executeInstruction' && cfg.fast !== false)) {
        throw new Error('adoptMemories: the core has a field a new one lacks: ' + k);
      }
    }
    Object.assign(m.core, fresh);
    rp.core = m.core;
  }
  rp.sram = m.sram;
  rp.sramView = m.sramView;
  rp.flash = m.flash;
  rp.flash16 = m.flash16;
  rp.flashView = m.flashView;
  rp.bootrom = m.bootrom;
  rp.core.registers = m.registers;
}

// ------------------------------------------------------------------------------------ USB
const hostBytes = [];     // from the PC, not yet taken by the device
let pendingRead = -1;     // size of an OUT transfer the device armed while we had nothing
let usbSock = null;

function usbFeed() {
  if (pendingRead < 0 || !hostBytes.length || !cdc || cdc.outEndpoint < 0) return;
  const n = Math.min(pendingRead, hostBytes.length);
  const buf = Uint8Array.from(hostBytes.splice(0, n));
  pendingRead = -1;
  mcu.usbCtrl.endpointReadDone(cdc.outEndpoint, buf);
}

let usbStock = null;      // USBCDC's own endpoint-read handler of this machine
function usbEndpointRead(endpoint, size) {
  if (endpoint !== cdc.outEndpoint || cdc.outEndpoint < 0) {
    usbStock(endpoint, size);
    return;
  }
  pendingRead = size;
  usbFeed();
}
const usbConnected = () => out({ ev: 'usb', t: tnow() });
const usbSerialData = (buf) => {
  if (usbSock) usbSock.write(Buffer.from(buf));
};
function attachUSB(rp) {
  cdc = new USBCDC(rp.usbCtrl);
  pendingRead = -1;
  usbStock = rp.usbCtrl.onEndpointRead;
  rp.usbCtrl.onEndpointRead = usbEndpointRead;
  cdc.onDeviceConnected = usbConnected;
  cdc.onSerialData = usbSerialData;
}

// ----------------------------------------------------------------------------- key matrix
const closed = new Set();   // key indices: row * ncols + col, then the buttons
// cfg.script: [[emulated ns, [closed keys]], ...] in time order, applied by the run loop itself,
// so a run with a script depends on nothing outside the emulator (two runs give the same frames).
let script = (cfg.script || []).slice();
function updateColumns() {
  if (!mcu) return;
  const { rows, cols, buttons } = cfg;
  for (let c = 0; c < cols.length; c++) {
    let low = false;
    for (let r = 0; r < rows.length && !low; r++) {
      if (closed.has(r * cols.length + c) && mcu.gpio[rows[r]].value === GPIOPinState.Low) low = true;
    }
    mcu.gpio[cols[c]].setInputValue(!low);
  }
  const nm = rows.length * cols.length;
  for (let i = 0; i < buttons.length; i++) mcu.gpio[buttons[i]].setInputValue(!closed.has(nm + i));
}

// ----------------------------------------------------------------------------------- LEDs
// WS2812: a bit is a high pulse, long (~800 ns) for 1, short (~400 ns) for 0; a frame ends
// when the line stays low for the reset time (> 50 us).
const newLed = () => ({ rise: -1, lastFall: -1, cur: 0, nbits: 0, bytes: [], start: -1, frames: 0, lastEnd: 0 });
let led = newLed();
function ledEdge(value, t) {
  if (value === GPIOPinState.High) {
    led.rise = t;
    if (led.start < 0) led.start = t;
  } else if (value === GPIOPinState.Low && led.rise >= 0) {
    const high = t - led.rise;
    led.rise = -1;
    led.lastFall = t;
    led.cur = (led.cur << 1) | (high > 600 ? 1 : 0);
    if (++led.nbits === 8) {
      led.bytes.push(led.cur);
      led.cur = 0;
      led.nbits = 0;
    }
  }
}
function ledFlush(now) {
  if (led.start < 0 || led.rise >= 0 || now - led.lastFall < 50000) return;
  led.frames++;
  led.lastEnd = led.lastFall;
  // frame_bytes false: the frame's times only (a long fuzz needs no pictures, and its pipe
  // would carry 1 KB of hex for each of them).
  out({ ev: 'frame', t: led.start, end: led.lastFall, bits: led.nbits,
        hex: cfg.frame_bytes === false ? '' : Buffer.from(led.bytes).toString('hex') });
  led.bytes = [];
  led.cur = 0;
  led.nbits = 0;
  led.start = -1;
}

// ------------------------------------------------------------------------------------ PIO
// rp2040js runs PIO from its own setTimeout loop, unrelated to emulated time, and ignores
// clock dividers and [delay]s. CircuitPython's neopixel_write drives the LEDs through PIO, so
// here each enabled state machine executes when emulated time says it does: one
// instruction per (clock divider) system cycles, delays included.
let pioNext = [[0, 0, 0, 0], [0, 0, 0, 0]];     // system cycle of each machine's next step
let pioActive = false;
function pioOnEmulatedTime(rp) {
  for (const pio of rp.pio) {
    pio.run = () => { pioActive = true; };       // called when CTRL enables a machine
  }
  pioActive = false;
}
function pioCatchUp() {
  const now = Math.floor(mcu.clock.nanos / NS_PER_CYCLE);
  let any = false;
  for (let p = 0; p < 2; p++) {
    const pio = mcu.pio[p];
    if (pio.stopped) continue;
    any = true;
    for (let i = 0; i < 4; i++) {
      const sm = pio.machines[i];
      if (!sm.enabled) { pioNext[p][i] = now; continue; }
      const div = (sm.clockDivInt || 65536) + sm.clockDivFrac / 256;
      let next = Math.max(pioNext[p][i], now - 64 * div); // no catch-up storm after a pause
      while (next <= now) {
        const before = sm.cycles;
        sm.step();
        next += Math.max(1, sm.cycles - before) * div;
      }
      pioNext[p][i] = next;
    }
    pio.checkChangedPins();
  }
  pioActive = any;
}

// ------------------------------------------------------------------------------------ boot
const watchdogReset = () => { rebootPending = true; };
const rowListener = () => updateColumns();
const ledListener = (v) => ledEdge(v, tnow());
function boot() {
  if (mcu) base += mcu.clock.nanos;
  const rp = new RP2040();
  adoptMemories(rp);
  rp.logger.currentLogLevel = 3; // errors only
  wideFields(rp);
  rp.loadBootrom(bootromWords);
  const img = Buffer.alloc(FLASH_SIZE);
  fs.readSync(flashFd, img, 0, FLASH_SIZE, 0);
  rp.flash.set(img);
  // As rp2040js' own MicroPython demo does: start at boot2 in flash (the ROM's reset path
  // waits for a debugger here); the ROM's flash functions are still called through its table.
  rp.core.PC = 0x10000000;
  nor.attach(rp);
  patchSSI(rp);
  if (cfg.fast !== false) {   // false: rp2040js alone, the reference the fast paths are checked against
    fastSRAM(rp, memories);
    fastCore(rp.core, rp);
  }
  rp.peripherals[0x40058].onWatchdogTrigger = watchdogReset;
  mcu = rp;
  if (cfg.circuitpython) {
    // CircuitPython reads the BOOTSEL button (QSPI SS through SIO's GPIO_HI_IN) at boot and
    // waits while it reads pressed; rp2040js reports 0 (pressed): released is high.
    const sioRead = rp.sio.readUint32.bind(rp.sio);
    rp.sio.readUint32 = (offset) => (offset === 0x008 ? sioRead(offset) | 0x2 : sioRead(offset));
    pioOnEmulatedTime(rp);
  }
  attachUSB(rp);
  for (const pin of [...cfg.rows]) rp.gpio[pin].addListener(rowListener);
  rp.gpio[cfg.data_pin].addListener(ledListener);
  led.rise = -1; led.start = -1; led.bytes = []; led.nbits = 0;
  updateColumns();
  boots++;
  out({ ev: 'boot', n: boots, t: tnow() });
}

// V8 stores a field that has only held small integers as one; the first emulated instant past
// 2^30 ns (1.07 s) or cycles would change the clock's, the alarms' and the core's shapes and throw
// away the compiled code of everything that touches them, mid-run. They hold doubles from the
// start instead (values put back at once: nothing runs in between).
// And the core's branch-and-link hook (a no-op by default, unused here) is one function for every
// RP2040, not a closure of each, so the compiled calls to it stay valid from boot to boot.
const noHook = () => {};
function wideFields(rp) {
  rp.core.blTaken = noHook;
  rp.clock.nanosCounter = 0.5;
  rp.clock.nanosCounter = 0;
  rp.clock.createAlarm(() => {}).nanos = 0.5;
  rp.core.cycles = 0.5;
  rp.core.cycles = 0;
}

// ------------------------------------------------------------------------------- the loop
let rebootPending = false;
let cutAt = -1;          // emulated ns at which the power goes (a test's power cut)
const waits = [];        // {id, kind: 'at'|'quiet', t, ms}
let wallStart = Date.now();
let simStart = 0;

function finishCut() {
  const busy = nor.cut(mcu.clock.nanos);
  fs.fsyncSync(flashFd);
  // (Chip select down with no byte clocked in yet: no command, null; undefined would drop the
  // field from the event, and the power-cut test failed on the missing key.)
  out({ ev: 'cut', t: tnow(), writes: nor.writes,
        in_flash_cmd: nor.cs && nor.bytes.length ? nor.bytes[0] : (busy ? busy.cmd : null),
        busy, power_cycle: !!cfg.usb_path });
  if (!cfg.usb_path) process.exit(0);
  powerOff();
}

// A power cycle without leaving Node (cfg.usb_path): the RP2040 and everything the runner keeps
// for it go with the power; only the flash file stays, as the NOR model left it at the cut
// instant. power_on then builds a fresh RP2040 from that file, as a new process would, with its
// clock at 0. What stays is V8's compiled code of the emulator: no Node start-up, no warm-up.
let power = 0;           // power-ons in this process; a command for an earlier one is refused
function powerOff() {
  for (const pio of mcu.pio) pio.stop();
  mcu = null;
  cdc = null;
  if (usbSock) usbSock.destroy();   // the USB cable's far end goes: the host sees a disconnect
  usbSock = null;
  // What was asked of the machine that went is answered now: it will not happen.
  for (const w of waits.splice(0)) out({ ev: 'error', id: w.id, text: 'the power was cut' });
  base = 0;
  boots = 0;
  nor = new NorFlash();
  cutAt = -1;
  cutOnOp = null;
  rebootPending = false;
  closed.clear();
  script = (cfg.script || []).slice();
  led = newLed();
  snap = newSnap();
  pioNext = [[0, 0, 0, 0], [0, 0, 0, 0]];
  pioActive = false;
  hostBytes.length = 0;
  pendingRead = -1;
}
function powerOn() {
  power++;
  boot();
  simStart = tnow();
  wallStart = Date.now();
  connectUSB(net.connect(cfg.usb_path));
}
function connectUSB(sock) {
  usbSock = sock;
  sock.on('data', (d) => { if (usbSock !== sock) return; for (const b of d) hostBytes.push(b); usbFeed(); });
  sock.on('error', () => {});
  sock.on('end', () => {});
}

function checkWaits(now) {
  for (let i = waits.length - 1; i >= 0; i--) {
    const w = waits[i];
    let done = false;
    if (w.kind === 'at') done = now >= w.t;
    else if (w.kind === 'quiet') done = led.start < 0 && now - Math.max(led.lastEnd, w.from) >= w.ms * 1e6;
    else if (w.kind === 'frames') done = led.frames >= w.n;
    else if (w.kind === 'settle') {
      // A new frame (or `within` ms without one), then no frame started for `quiet` ms.
      if (!w.seen && (led.frames > w.n || now - w.from >= w.within * 1e6)) w.seen = true;
      done = w.seen && led.start < 0 && now - Math.max(led.lastEnd, w.from) >= w.quiet * 1e6;
    }
    else if (w.kind === 'state' && now >= w.t) {
      // What the fast paths must leave as rp2040js alone does (the tests compare): the core,
      // SRAM and flash. The loop's checks fall at the same instructions either way.
      waits.splice(i, 1);
      const c = mcu.core, hash = (a) => crypto.createHash('sha256').update(a).digest('hex');
      out({ ev: 'ok', id: w.id, t: now, cycles: c.cycles, regs: Array.from(c.registers), apsr: c.APSR >>> 0,
            sram: hash(mcu.sram), flash: hash(mcu.flash.subarray(0, FLASH_SIZE)), boots, writes: nor.writes });
    }
    if (done) {
      waits.splice(i, 1);
      out({ ev: 'done', id: w.id, t: now, frames: led.frames });
    }
  }
}

function run() {
  const rp = mcu;
  const { clock, core } = rp;
  let budget = 400000;
  if (cfg.realtime) {
    // Never ahead of the wall clock (idle waits would otherwise skip ahead).
    const ahead = (tnow() - simStart) / 1e6 - (Date.now() - wallStart);
    if (ahead > 2) { setTimeout(run, Math.min(20, ahead)); return; }
  }
  while (budget-- > 0) {
    const limit = cutAt >= 0 ? cutAt - base : Infinity;   // a flash operation may set it
    if (clock.nanos >= limit) { finishCut(); return; }   // a power cycle waits for power_on
    if (pioActive) {
      if (core.waiting) clock.tick(8 * NS_PER_CYCLE);
      else clock.tick(core.executeInstruction() * NS_PER_CYCLE);
      pioCatchUp();
      continue;
    }
    if (core.waiting) {
      const dt = clock.nanosToNextAlarm;
      if (cfg.circuitpython && (dt <= 0 || dt > 1e6)) {
        // A real USB host sends a start-of-frame every millisecond; without that wake-up
        // CircuitPython's idle loop (WFI) sometimes waited forever for an interrupt that never
        // came while idle time leapt ahead. Wake it every emulated millisecond instead.
        clock.tick(Math.min(1e6, limit - clock.nanos));
        core.waiting = false;
        budget -= 50;
        continue;
      }
      if (dt <= 0) { clock.tick(1e6); budget -= 50; continue; } // no timer armed: time still flows
      if (cfg.realtime && dt > 1e6) { clock.tick(1e6); break; }
      clock.tick(Math.min(dt, limit - clock.nanos));
      budget -= 50;
    } else {
      // Busy: instructions back to back until a wait, the cut, a reboot or PIO (the checks
      // above, per instruction as before, without leaving this loop for each one).
      let k = 0;
      const armed = cutAt;
      do {
        // clock.tick, with its alarm list looked at only when an alarm is due
        const dt = core.executeInstruction() * NS_PER_CYCLE, na = clock.nextAlarm;
        if (na !== null && na.nanos <= clock.nanosCounter + dt) clock.tick(dt);
        else clock.nanosCounter += dt;
      } while (++k < 1024 && !core.waiting && !rebootPending && !pioActive && clock.nanosCounter < limit && cutAt === armed);
      budget -= k - 1;
    }
    if (rebootPending) break;
  }
  if (nor.busy && !(cutAt >= 0 && clock.nanos >= cutAt - base)) nor.progress(clock.nanos, false);
  const now = tnow();
  while (script.length && script[0][0] <= now) {
    closed.clear();
    for (const k of script.shift()[1]) closed.add(k);
    updateColumns();
  }
  ledFlush(now);
  checkWaits(now);
  if (rebootPending) {
    rebootPending = false;
    nor.progress(clock.nanos, true);  // a reset of the RP2040 does not stop the flash chip
    out({ ev: 'reset', t: now });
    boot();
  }
  setImmediate(run);
}

// -------------------------------------------------------------------------------- control
function command(msg) {
  if (msg.cmd === 'power_on' && !mcu) {
    powerOn();
    out({ ev: 'ok', id: msg.id, t: tnow(), power });
    setImmediate(run);
    return;
  }
  if (msg.cmd !== 'quit' && (!mcu || (msg.power != null && msg.power !== power))) {
    // Meant for the machine before a cut, or sent while the power is off.
    out({ ev: 'error', id: msg.id, text: 'the power was cut' });
    return;
  }
  const now = tnow();
  switch (msg.cmd) {
    case 'keys':
      closed.clear();
      for (const k of msg.closed) closed.add(k);
      updateColumns();
      out({ ev: 'ok', id: msg.id, t: now });
      break;
    case 'at':
      waits.push({ id: msg.id, kind: 'at', t: msg.rel ? now + msg.t : msg.t });
      break;
    case 'quiet':
      waits.push({ id: msg.id, kind: 'quiet', ms: msg.ms, from: now });
      break;
    case 'frames':
      waits.push({ id: msg.id, kind: 'frames', n: msg.n });
      break;
    case 'settle':
      waits.push({ id: msg.id, kind: 'settle', n: msg.n, within: msg.within, quiet: msg.quiet, from: now, seen: false });
      break;
    case 'time':
      out({ ev: 'ok', id: msg.id, t: now, frames: led.frames, boots, writes: nor.writes });
      break;
    case 'pc':
      out({ ev: 'ok', id: msg.id, t: now, pc: mcu.core.PC, waiting: mcu.core.waiting, lr: mcu.core.LR, cs: nor.cs, bytes: nor.bytes.slice(0, 8), primask: mcu.core.PM, pio: pioActive, pio_stopped: mcu.pio.map((p) => p.stopped) });
      break;
    case 'state': // at emulated time t (the first check of the run loop at or after it)
      waits.push({ id: msg.id, kind: 'state', t: msg.t == null ? now : msg.t });
      break;
    case 'gpio':
      out({ ev: 'ok', id: msg.id, t: now, values: mcu.gpio.map((p) => p.value) });
      break;
    case 'snap':
      Object.assign(snap, { p: msg.p || 0, seed: msg.seed || 1, dir: msg.dir || null, max: msg.max || 0,
                            onErase: !!msg.on_erase });
      out({ ev: 'ok', id: msg.id, t: now, n: snap.n });
      break;
    case 'cut':
      if (msg.inside_op) {
        cutOnOp = { after: msg.t == null ? now : msg.t, frac: msg.frac == null ? 0.5 : msg.frac, cmd: msg.op };
        out({ ev: 'ok', id: msg.id, t: now });
        break;
      }
      cutAt = msg.t == null ? now : (msg.rel ? now + msg.t : msg.t);
      out({ ev: 'ok', id: msg.id, t: now, cut_at: cutAt });
      break;
    case 'reset':
      rebootPending = true;
      out({ ev: 'ok', id: msg.id, t: now });
      break;
    case 'power_on':
      out({ ev: 'error', id: msg.id, text: 'the power is already on' });
      break;
    case 'quit':
      // Stopping the emulator is a power-off too; `finish`: one the flash chip outlives (it
      // ends the page program or erase under way, as a chip whose supply holds that long).
      if (mcu && msg.finish) nor.progress(mcu.clock.nanos, true);
      else if (mcu) nor.cut(mcu.clock.nanos);
      fs.fsyncSync(flashFd);
      process.exit(0);
      break;
    default:
      out({ ev: 'error', id: msg.id, text: 'unknown command ' + msg.cmd });
  }
}

boot();
simStart = tnow();
wallStart = Date.now();
if (cfg.usb_fd != null) connectUSB(new net.Socket({ fd: cfg.usb_fd, readable: true, writable: true }));
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => { if (line.trim()) command(JSON.parse(line)); });
rl.on('close', () => { if (mcu) nor.cut(mcu.clock.nanos); fs.fsyncSync(flashFd); process.exit(0); });
setImmediate(run);
