# The simulated board's flash as littlefs in a host file (BAWO_LFS): real ENOSPC when it is
# full, as on a Pico. Imported only for that (sim_boot): a module of its own, so the harness
# that every simulated board carries keeps this code off the 160 KB heap.


class FileFlash:
    """A flash chip in a host file, for vfs.VfsLfs2 (MicroPython's block device protocol):
    the simulated board's filesystem is then littlefs, as on a Pico, full when it is full.
    Writes go straight to the file, so the image survives a killed simulator."""

    def __init__(self, path, blocks, block_size=4096):
        self.block_size = block_size
        self.blocks = blocks
        try:
            self.f = open(path, 'r+b')
            self.new = False
        except OSError:
            self.f = open(path, 'w+b')
            self.f.write(b'\xff' * (block_size * blocks))
            self.new = True

    def readblocks(self, n, buf, off=0):
        self.f.seek(n * self.block_size + off)
        self.f.readinto(buf)

    def writeblocks(self, n, buf, off=0):
        self.f.seek(n * self.block_size + (off or 0))
        self.f.write(buf)

    def ioctl(self, op, arg):
        if op == 4:
            return self.blocks
        if op == 5:
            return self.block_size
        if op == 6:
            return 0


def mount_flash(image, kb, at):
    """Mount the littlefs image (made, `kb` KB, if there is none) at `at` (MicroPython)."""
    import vfs
    dev = FileFlash(image, kb * 1024 // 4096)
    if dev.new:
        vfs.VfsLfs2.mkfs(dev)
    vfs.mount(vfs.VfsLfs2(dev), at)
    return dev
