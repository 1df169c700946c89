# CircuitPython only: boot.py left the CIRCUITPY drive writable to the PC (MENU held at
# power-on), so the board cannot keep games. Say so on the LEDs (a blue top row) and on the
# console, and wait for the next power-on.
import time
import hw

DRIVE_BLUE = 0x0000A0


def show(profile_path):
    board = hw.open_board(profile_path)
    px = board.pixels
    px.clear()
    for x in range(board.profile.width):
        px.set_pixel(x, 0, DRIVE_BLUE)
    px.show()
    print('bawo: the drive is writable to the PC (MENU was held at power-on); copy files, then '
          'unplug and plug in the board without MENU held to play')
    while True:
        time.sleep(1)
