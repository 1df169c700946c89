// The runner's fast core: the commonest Thumb instructions and memory accesses of rp2040js,
// done here for speed. Every path is a copy of rp2040js's own code (same results, flags and
// cycles), so it is only right for the rp2040js it was copied from: the version is checked
// below, when this file loads, and another one stops the runner at once.
//
// What it is worth after the frozen image shortened boots, `python bench/pico.py --only
// fast-boot emulator` (rp2040js alone against this, alternated in the same run, best of 3, on
// 2 shared cores; the times include Node's start, which the fast core does not shorten):
//   frozen UF2 image, power-on to the first LED frame: 1.6 s -> 1.0 s wall (1.51x), node CPU
//   2.1 s -> 1.4 s (1.43x); a scripted boot and 2 moves: node CPU 6.6 s -> 4.6 s (1.42x);
//   stock image + bundle, to the first frame: 3.3 s -> 1.9 s wall (1.71x), CPU 1.65x.
// So it still pays for itself, and it stays. tests/test_pico.py checks that it changes no
// frame, register, cycle count or flash byte.
import fs from 'node:fs';
import { RP2040 } from 'rp2040js';

export const RP2040JS_VERSION = '1.4.1';

// Checked at load, not trusted from package-lock.json: a node_modules installed by hand, or a
// newer rp2040js, would otherwise run these copies against code they no longer match.
const installed = JSON.parse(fs.readFileSync(
  new URL('./node_modules/rp2040js/package.json', import.meta.url), 'utf8')).version;
if (installed !== RP2040JS_VERSION) {
  throw new Error('fastcore.mjs copies rp2040js ' + RP2040JS_VERSION + ' but ' + installed +
                  ' is installed: run `npm ci` in host/bawo/pico, or check the copies against ' +
                  installed + ' and change RP2040JS_VERSION');
}

// rp2040js looks every 32-bit write up in its peripheral table before it tries SRAM, and a
// miss there is a slow lookup; stack pushes and heap stores are most of the writes. SRAM
// first, the rest exactly as before (no peripheral is mapped inside SRAM).
// Like every function the runner puts into an RP2040, it is made once per process and pointed
// at each new machine: V8 keeps compiled code across a power cycle only for the same function
// objects (a new closure is a new call target, and code that inlined one is thrown away once
// its machine is collected).
let sramWrite32 = null;
export function fastSRAM(rp, memories) {
  if (!sramWrite32) {
    const view = rp.sramView, end = 0x20000000 + rp.sram.length - 3;
    const slow = RP2040.prototype.writeUint32;
    sramWrite32 = function (address, value) {
      if (address >= 0x20000000 && address < end) view.setUint32(address - 0x20000000, value, true);
      else slow.call(this, address, value);
    };
  }
  if (rp.sramView !== memories.sramView) throw new Error('fastSRAM: not the process memories');
  rp.writeUint32 = sramWrite32;
}

// rp2040js decodes each instruction by walking one long chain of tests in alphabetical order,
// so a load or a store (most of MicroPython's instructions) fails some 40-60 tests first. The
// commonest 16-bit instructions are dispatched here by their top bits to the same code (copied
// from rp2040js 1.4.1's executeInstruction: same results, flags and cycles); every other
// instruction, and any instruction with an interrupt to check first, goes to rp2040js.
// Made once (see fastSRAM) and pointed at each new RP2040's core; the memories it indexes are
// the process's own (adoptMemories), so V8 may treat them as constants.
let fastInstall = null;
export function fastCore(core, rp) {
  if (!fastInstall) fastInstall = makeFastCore(rp);
  fastInstall(core, rp);
}
function makeFastCore(rp) {
  const core = rp.core;
  const coreExec = Object.getPrototypeOf(rp.core).executeInstruction;   // rp2040js' own
  const slow = () => coreExec.call(core);
  const R = rp.core.registers;
  // SRAM and flash as typed arrays (x86 and ARM hosts are little-endian, as the RP2040 is):
  // an aligned access there is an index, the rest goes through rp2040js as before.
  const SRAM = 0x20000000, SRAM_LEN = rp.sram.length, FLASH = 0x10000000, FLASH_LEN = rp.flash.length;
  const sram8 = rp.sram, sram16 = new Uint16Array(rp.sram.buffer, rp.sram.byteOffset, SRAM_LEN >> 1);
  const sram32 = new Uint32Array(rp.sram.buffer, rp.sram.byteOffset, SRAM_LEN >> 2);
  const flash8 = rp.flash, flash16 = new Uint16Array(rp.flash.buffer, rp.flash.byteOffset, FLASH_LEN >> 1);
  const flash32 = new Uint32Array(rp.flash.buffer, rp.flash.byteOffset, FLASH_LEN >> 2);
  const ROM_LEN = rp.bootrom.length * 4, rom32 = rp.bootrom;
  const rom16 = new Uint16Array(rp.bootrom.buffer, rp.bootrom.byteOffset, ROM_LEN >> 1);
  // rp2040js' cyclesIO: SIO 0, APB 3 (4 for a write), the rest 1.
  const cyc = (a, w) => { a >>>= 0; return a >= 0xd0000000 && a < 0xe0000000 ? 0 : (a >= 0x40000000 && a < 0x50000000 ? (w ? 4 : 3) : 1); };
  // Loads from flash (its first 16 MiB mirror, as rp2040js) and the ROM too: constants in
  // literal pools, MicroPython's frozen data and littlefs reads through XIP, the ROM's tables.
  const ld32 = (a) => {
    if (!(a & 3)) {
      let o = (a - SRAM) >>> 0;
      if (o < SRAM_LEN) return sram32[o >> 2];
      o = (a - FLASH) >>> 0;
      if (o < FLASH_LEN) return flash32[o >> 2];
      if (a >>> 0 < ROM_LEN) return rom32[(a >>> 0) >> 2];
    }
    return core.readUint32(a);
  };
  const ld16 = (a) => {
    if (!(a & 1)) {
      let o = (a - SRAM) >>> 0;
      if (o < SRAM_LEN) return sram16[o >> 1];
      o = (a - FLASH) >>> 0;
      if (o < FLASH_LEN) return flash16[o >> 1];
    }
    return core.readUint16(a);
  };
  const ld8 = (a) => {
    let o = (a - SRAM) >>> 0;
    if (o < SRAM_LEN) return sram8[o];
    o = (a - FLASH) >>> 0;
    return o < FLASH_LEN ? flash8[o] : core.readUint8(a);
  };
  const st32 = (a, v) => { const o = (a - SRAM) >>> 0; if (o < SRAM_LEN && !(a & 3)) sram32[o >> 2] = v; else core.writeUint32(a, v); };
  const st8 = (a, v) => { const o = (a - SRAM) >>> 0; if (o < SRAM_LEN) sram8[o] = v; else core.writeUint8(a, v); };
  const fetch = (pc) => {
    let o = (pc - FLASH) >>> 0;
    if (o < FLASH_LEN) return flash16[o >> 1];
    o = (pc - SRAM) >>> 0;
    if (o < SRAM_LEN) return sram16[o >> 1];
    return pc >>> 0 < ROM_LEN ? rom16[(pc >>> 0) >> 1] : core.readUint16(pc);   // the ROM's routines
  };
  const nz = (result) => { core.N = !!(result & 0x80000000); core.Z = result === 0; };
  const nz32 = (result) => { core.N = !!(result & 0x80000000); core.Z = (result & 0xffffffff) === 0; };
  const execute = () => {
    if (core.interruptsUpdated) return slow();
    const opcodePC = R[15] & ~1;
    const opcode = fetch(opcodePC);
    let d = 1;
    switch (opcode >> 11) {
      case 0b00000: { // LSLS (immediate)
        const imm5 = (opcode >> 6) & 0x1f, input = R[(opcode >> 3) & 7];
        const result = input << imm5;
        R[15] += 2;
        R[opcode & 7] = result;
        nz(result);
        core.C = imm5 ? !!(input & (1 << (32 - imm5))) : core.C;
        break;
      }
      case 0b00001: { // LSRS (immediate)
        const imm5 = (opcode >> 6) & 0x1f, input = R[(opcode >> 3) & 7];
        const result = imm5 ? input >>> imm5 : 0;
        R[15] += 2;
        R[opcode & 7] = result;
        nz(result);
        core.C = !!((input >>> (imm5 ? imm5 - 1 : 31)) & 0x1);
        break;
      }
      case 0b00100: { // MOVS
        const value = opcode & 0xff;
        R[15] += 2;
        R[(opcode >> 8) & 7] = value;
        core.N = false;
        core.Z = value === 0;
        break;
      }
      case 0b00101: // CMP (immediate)
        R[15] += 2;
        core.substractUpdateFlags(R[(opcode >> 8) & 7], opcode & 0xff);
        break;
      case 0b00110: { // ADDS (encoding T2)
        const Rdn = (opcode >> 8) & 7;
        R[15] += 2;
        R[Rdn] = core.addUpdateFlags(R[Rdn], opcode & 0xff);
        break;
      }
      case 0b00011: { // ADDS/SUBS (register), ADDS/SUBS (immediate, encoding T1)
        const Rd = opcode & 7, Rn = R[(opcode >> 3) & 7], x = (opcode >> 6) & 7;
        R[15] += 2;
        switch ((opcode >> 9) & 3) {
          case 0: R[Rd] = core.addUpdateFlags(Rn, R[x]); break;
          case 1: R[Rd] = core.substractUpdateFlags(Rn, R[x]); break;
          case 2: R[Rd] = core.addUpdateFlags(Rn, x); break;
          default: R[Rd] = core.substractUpdateFlags(Rn, x); break;
        }
        break;
      }
      case 0b00111: { // SUBS (encoding T2)
        const Rdn = (opcode >> 8) & 7;
        R[15] += 2;
        R[Rdn] = core.substractUpdateFlags(R[Rdn], opcode & 0xff);
        break;
      }
      case 0b01000: {
        const Rm = (opcode >> 3) & 7, Rdn = opcode & 7;
        switch (opcode >> 6) {
          case 0b0100000000: { // ANDS
            const result = R[Rdn] & R[Rm];
            R[15] += 2;
            R[Rdn] = result;
            core.N = !!(result & 0x80000000);
            core.Z = (result & 0xffffffff) === 0;
            break;
          }
          case 0b0100000001: { // EORS
            const result = R[Rm] ^ R[Rdn];
            R[15] += 2;
            R[Rdn] = result;
            nz(result);
            break;
          }
          case 0b0100001000: { // TST
            const result = R[Rdn] & R[Rm];
            R[15] += 2;
            nz(result);
            break;
          }
          case 0b0100001010: // CMP (register)
            R[15] += 2;
            core.substractUpdateFlags(R[Rdn], R[Rm]);
            break;
          case 0b0100000010: { // LSLS (register)
            const input = R[Rdn], shiftCount = R[Rm] & 0xff;
            const result = shiftCount >= 32 ? 0 : input << shiftCount;
            R[15] += 2;
            R[Rdn] = result;
            nz(result);
            core.C = shiftCount ? !!(input & (1 << (32 - shiftCount))) : core.C;
            break;
          }
          case 0b0100000100: { // ASRS (register)
            const input = R[Rdn];
            const shiftN = (R[Rm] & 0xff) < 32 ? R[Rm] & 0xff : 32;
            const result = shiftN < 32 ? input >> shiftN : (input & 0x80000000) >> 31;
            R[15] += 2;
            R[Rdn] = result;
            nz32(result);
            core.C = input & (1 << (shiftN - 1)) ? true : false;
            break;
          }
          case 0b0100000101: // ADCS
            R[15] += 2;
            R[Rdn] = core.addUpdateFlags(R[Rm], R[Rdn] + (core.C ? 1 : 0));
            break;
          case 0b0100001100: { // ORRS
            const result = R[Rdn] | R[Rm];
            R[15] += 2;
            R[Rdn] = result;
            nz32(result);
            break;
          }
          case 0b0100001101: { // MULS
            const result = Math.imul(R[Rm], R[Rdn]);
            R[15] += 2;
            R[Rdn] = result;
            nz32(result);
            break;
          }
          case 0b0100001110: { // BICS
            R[15] += 2;
            const result = (R[Rdn] &= ~R[Rm]);
            nz(result);
            break;
          }
          case 0b0100001111: { // MVNS
            const result = ~R[Rm];
            R[15] += 2;
            R[Rdn] = result;
            nz(result);
            break;
          }
          default:
            switch (opcode >> 8) {
              case 0b01000100: { // ADD (register), high registers
                const Rm4 = (opcode >> 3) & 0xf, Rd4 = ((opcode & 0x80) >> 4) | (opcode & 7);
                R[15] += 2;
                const result = (Rd4 === 15 ? R[15] + 2 : R[Rd4]) + (Rm4 === 15 ? R[15] + 2 : R[Rm4]);
                if (Rd4 === 15) { R[15] = result & ~1; d++; }
                else if (Rd4 === 13) R[13] = result & ~3;
                else R[Rd4] = result;
                break;
              }
              case 0b01000101: // CMP (register, encoding T2)
                R[15] += 2;
                core.substractUpdateFlags(R[((opcode >> 4) & 8) | (opcode & 7)], R[(opcode >> 3) & 0xf]);
                break;
              case 0b01000110: { // MOV (register)
                const Rm4 = (opcode >> 3) & 0xf, Rd4 = ((opcode >> 4) & 8) | (opcode & 7);
                R[15] += 2;
                let value = Rm4 === 15 ? R[15] + 2 : R[Rm4];
                if (Rd4 === 15) { d++; value &= ~1; }
                else if (Rd4 === 13) value &= ~3;
                R[Rd4] = value;
                break;
              }
              case 0b01000111: { // BX, BLX (register)
                if (opcode & 7) return slow();
                const Rm4 = (opcode >> 3) & 0xf;
                R[15] += 2;
                if (opcode & 0x80) {
                  core.LR = R[15] | 1;
                  R[15] = R[Rm4] & ~1;
                  d++;
                  core.blTaken(core, true);
                } else {
                  core.BXWritePC(R[Rm4]);
                  d++;
                }
                break;
              }
              default:
                return slow();
            }
        }
        break;
      }
      case 0b01001: { // LDR (literal)
        R[15] += 2;
        const addr = ((R[15] + 2) & 0xfffffffc) + ((opcode & 0xff) << 2);
        d += cyc(addr);
        R[(opcode >> 8) & 7] = ld32(addr);
        break;
      }
      case 0b01011: {
        const kind = opcode >> 9;
        if (kind !== 0b0101100 && kind !== 0b0101110) return slow();
        const addr = R[(opcode >> 6) & 7] + R[(opcode >> 3) & 7];
        R[15] += 2;
        d += cyc(addr);
        R[opcode & 7] = kind === 0b0101100 ? ld32(addr) : ld8(addr);
        break;
      }
      case 0b01100: { // STR (immediate)
        const address = R[(opcode >> 3) & 7] + (((opcode >> 6) & 0x1f) << 2);
        R[15] += 2;
        d += cyc(address, true);
        st32(address, R[opcode & 7]);
        break;
      }
      case 0b01101: { // LDR (immediate)
        const addr = R[(opcode >> 3) & 7] + (((opcode >> 6) & 0x1f) << 2);
        R[15] += 2;
        d += cyc(addr);
        R[opcode & 7] = ld32(addr);
        break;
      }
      case 0b01110: { // STRB (immediate)
        const address = R[(opcode >> 3) & 7] + ((opcode >> 6) & 0x1f);
        R[15] += 2;
        d += cyc(address, true);
        st8(address, R[opcode & 7]);
        break;
      }
      case 0b01111: { // LDRB (immediate)
        const addr = R[(opcode >> 3) & 7] + ((opcode >> 6) & 0x1f);
        R[15] += 2;
        d += cyc(addr);
        R[opcode & 7] = ld8(addr);
        break;
      }
      case 0b10001: { // LDRH (immediate)
        const addr = R[(opcode >> 3) & 7] + (((opcode >> 6) & 0x1f) << 1);
        R[15] += 2;
        d += cyc(addr);
        R[opcode & 7] = ld16(addr);
        break;
      }
      case 0b10010: { // STR (sp + immediate)
        const address = R[13] + ((opcode & 0xff) << 2);
        R[15] += 2;
        d += cyc(address, true);
        st32(address, R[(opcode >> 8) & 7]);
        break;
      }
      case 0b10011: { // LDR (sp + immediate)
        const addr = R[13] + ((opcode & 0xff) << 2);
        R[15] += 2;
        d += cyc(addr);
        R[(opcode >> 8) & 7] = ld32(addr);
        break;
      }
      case 0b01010: { // STR, STRH, STRB, LDRSB (register)
        const kind = (opcode >> 9) & 3;
        if (kind === 3) return slow();
        const address = R[(opcode >> 6) & 7] + R[(opcode >> 3) & 7];
        R[15] += 2;
        d += cyc(address, true);
        if (kind === 0) st32(address, R[opcode & 7]);
        else if (kind === 1) core.writeUint16(address, R[opcode & 7]);
        else st8(address, R[opcode & 7]);
        break;
      }
      case 0b10000: { // STRH (immediate)
        const address = R[(opcode >> 3) & 7] + (((opcode >> 6) & 0x1f) << 1);
        R[15] += 2;
        d += cyc(address, true);
        core.writeUint16(address, R[opcode & 7]);
        break;
      }
      case 0b10101: // ADD (register = SP plus immediate)
        R[15] += 2;
        R[(opcode >> 8) & 7] = R[13] + ((opcode & 0xff) << 2);
        break;
      case 0b10110: {
        const op7 = opcode >> 7;
        if (op7 === 0b101100000) { // ADD (SP plus immediate)
          R[15] += 2;
          core.SP += (opcode & 0x7f) << 2;
        } else if (op7 === 0b101100001) { // SUB (SP minus immediate)
          R[15] += 2;
          core.SP -= (opcode & 0x7f) << 2;
        } else if ((opcode >> 9) === 0b1011010) { // PUSH (the LR's store costs no cycle, as in rp2040js)
          let bitCount = 0;
          for (let i = 0; i <= 8; i++) if (opcode & (1 << i)) bitCount++;
          R[15] += 2;
          let address = R[13] - 4 * bitCount;
          for (let i = 0; i <= 7; i++) {
            if (opcode & (1 << i)) {
              st32(address, R[i]);
              d++;
              address += 4;
            }
          }
          if (opcode & 0x100) st32(address, R[14]);
          core.SP -= 4 * bitCount;
        } else if ((opcode >> 6) === 0b1011001011) { // UXTB
          R[15] += 2;
          R[opcode & 7] = R[(opcode >> 3) & 7] & 0xff;
        } else if ((opcode >> 6) === 0b1011001010) { // UXTH
          R[15] += 2;
          R[opcode & 7] = R[(opcode >> 3) & 7] & 0xffff;
        } else return slow();
        break;
      }
      case 0b10111: { // POP
        if ((opcode >> 9) !== 0b1011110) return slow();
        R[15] += 2;
        let address = R[13];
        for (let i = 0; i <= 7; i++) {
          if (opcode & (1 << i)) {
            R[i] = ld32(address);
            address += 4;
            d++;
          }
        }
        if (opcode & 0x100) {
          core.SP = address + 4;
          core.BXWritePC(ld32(address));
          d += 2;
        } else core.SP = address;
        break;
      }
      case 0b11000: // STMIA
      case 0b11001: { // LDMIA
        const Rn = (opcode >> 8) & 7, list = opcode & 0xff, load = opcode & 0x800;
        R[15] += 2;
        let address = R[Rn];
        for (let i = 0; i < 8; i++) {
          if (list & (1 << i)) {
            if (load) R[i] = ld32(address);
            else st32(address, R[i]);
            address += 4;
            d++;
          }
        }
        if (!(list & (1 << Rn))) R[Rn] = address;
        break;
      }
      case 0b11110: { // BL (other 32-bit instructions go to rp2040js)
        const opcode2 = fetch(opcodePC + 2);
        if (opcode2 >> 14 !== 0b11 || !((opcode2 >> 12) & 1)) return slow();
        const imm11 = opcode2 & 0x7ff, J2 = (opcode2 >> 11) & 1, J1 = (opcode2 >> 13) & 1;
        const imm10 = opcode & 0x3ff, S = (opcode >> 10) & 1;
        const I1 = 1 - (S ^ J1), I2 = 1 - (S ^ J2);
        const imm32 = ((S ? 0b11111111 : 0) << 24) | ((I1 << 23) | (I2 << 22) | (imm10 << 12) | (imm11 << 1));
        R[15] += 2;
        core.LR = (R[15] + 2) | 1;
        R[15] += 2 + imm32;
        d += 2;
        core.blTaken(core, false);
        break;
      }
      case 0b11010:
      case 0b11011: { // B (with cond); UDF and SVC go to rp2040js
        if (((opcode >> 9) & 0x7) === 0b111) return slow();
        let imm8 = (opcode & 0xff) << 1;
        if (imm8 & (1 << 8)) imm8 = (imm8 & 0x1ff) - 0x200;
        R[15] += 2;
        if (core.checkCondition((opcode >> 8) & 0xf)) {
          R[15] += imm8 + 2;
          d++;
        }
        break;
      }
      case 0b11100: { // B
        let imm11 = (opcode & 0x7ff) << 1;
        if (imm11 & (1 << 11)) imm11 = (imm11 & 0x7ff) - 0x800;
        R[15] += 2;
        R[15] += imm11 + 2;
        d++;
        break;
      }
      default:
        return slow();
    }
    core.cycles += d;
    return d;
  };
  return (c, machine) => {
    if (c !== core || c.registers !== R || machine.sram !== sram8 || machine.flash !== flash8 ||
        machine.bootrom !== rom32) {
      throw new Error('fastCore: a machine without the process memories (adoptMemories)');
    }
    c.executeInstruction = execute;
  };
}
