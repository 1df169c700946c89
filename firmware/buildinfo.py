# What this firmware is, as HELLO reports it. The build tools write their own copy of this
# file: `bawo flash` with kind 'files', `bawo build-uf2` with kind 'uf2' (frozen into the
# image). This copy is the source tree's, which the simulator runs.
VERSION = '0.1.0'
SOURCE = ''       # the first 16 hex digits of the sha256 of the sources built ('' here)
KIND = 'source'   # 'uf2', 'files' or 'source'
