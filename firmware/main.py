# MicroPython runs main.py at boot. A frozen main.py runs before the filesystem's, so all it
# does is import power_on: a bundle that `bawo flash` copied shadows every module it imports.
import power_on
power_on.main()
