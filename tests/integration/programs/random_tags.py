"""A seeded random run of the Python helper on the simulated device:
cudaMalloc, cudaMallocManaged and cudaFree through ctypes inside nested
vramtrace.push/pop tags, re-tagging with vramtrace.tag_pointer (live
pointers and freed ones), and windows whose peak is checked here as it
goes. It counts for itself what the report must say and prints one figure
a line, "expect PATH VALUE" or "expect_tag OWNER TAG FIELD VALUE", as
random_calls.c does. Usage: random_tags.py SEED [CALLS]."""
import ctypes
import random
import sys

import vramtrace

UNTAGGED = "untagged"
NAMES = ["weights", "kv_cache", "activations"]
MOVED_TO = "moved"
FIELDS = ["peak_bytes", "at_peak_bytes", "live_at_exit_bytes", "allocations", "frees",
          "bytes_allocated"]


class Figures:
    def __init__(self):
        self.live = self.peak = self.at_peak = 0
        self.allocations = self.frees = self.bytes_allocated = 0

    def grow(self, size):
        self.live += size
        self.peak = max(self.peak, self.live)


class Device:
    def __init__(self):
        self.total = Figures()
        self.tags = {}
        self.live = {}  # address -> [size, tag]
        self.events = 0
        self.peak_event = 0
        self.window = None

    def tag(self, name):
        return self.tags.setdefault(name, Figures())

    def allocated(self, address, size, tag):
        self.events += 1
        self.live[address] = [size, tag]
        for figures in (self.total, self.tag(tag)):
            figures.grow(size)
            figures.allocations += 1
            figures.bytes_allocated += size
        if self.total.live > self.total.at_peak:
            self.total.at_peak = self.total.live
            self.peak_event = self.events
            for figures in self.tags.values():
                figures.at_peak = figures.live
        if self.window is not None:
            self.window = max(self.window, self.total.live)

    def freed(self, address):
        self.events += 1
        size, tag = self.live.pop(address)
        for figures in (self.total, self.tag(tag)):
            figures.live -= size
            figures.frees += 1

    def retagged(self, address, tag):
        entry = self.live.get(address)
        if entry is None:
            return False
        self.tag(entry[1]).live -= entry[0]
        self.tag(tag).grow(entry[0])
        entry[1] = tag
        return True


def main(seed, calls):
    rng = random.Random(seed)
    cudart = ctypes.CDLL("libcudart.so.13")
    cudart.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    cudart.cudaMallocManaged.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t,
                                         ctypes.c_uint]
    cudart.cudaFree.argtypes = [ctypes.c_void_p]
    device = Device()
    tags, freed = [], []

    def allocate():
        size = rng.randrange(1, 1 << 16) if rng.random() < 0.6 else rng.randrange(1, 64) << 20
        pointer = ctypes.c_void_p()
        if rng.random() < 0.8:
            rc = cudart.cudaMalloc(ctypes.byref(pointer), size)
        else:
            rc = cudart.cudaMallocManaged(ctypes.byref(pointer), size, 1)
        if rc != 0:
            sys.exit("random_tags: allocation failed: %d" % rc)
        device.allocated(pointer.value, size, tags[-1] if tags else UNTAGGED)

    def free():
        address = rng.choice(list(device.live))
        if cudart.cudaFree(address) != 0:
            sys.exit("random_tags: cudaFree failed")
        device.freed(address)
        freed.append(address)

    def retag():
        pool = list(device.live) if device.live and rng.random() < 0.8 else freed
        if not pool:
            return
        address = rng.choice(pool)
        name = rng.choice(NAMES + [MOVED_TO])
        # A freed address may have been handed out again: the model knows.
        if vramtrace.tag_pointer(address, name) != device.retagged(address, name):
            sys.exit("random_tags: tag_pointer(%#x) disagrees" % address)

    def window():
        if device.window is None or rng.random() < 0.3:
            if not vramtrace.window_begin():
                sys.exit("random_tags: window_begin failed")
            device.window = device.total.live
            return
        peak, _ = vramtrace.window_peak()
        if peak != device.window:
            sys.exit("random_tags: window peak %s, expected %d" % (peak, device.window))

    for _ in range(calls):
        roll = rng.random()
        if roll < 0.04:
            if tags and (len(tags) == 3 or rng.random() < 0.5):
                if not vramtrace.pop():
                    sys.exit("random_tags: pop failed")
                tags.pop()
            else:
                name = rng.choice(NAMES)
                if not vramtrace.push(name):
                    sys.exit("random_tags: push failed")
                tags.append(name)
        elif roll < 0.08:
            retag()
        elif roll < 0.10:
            window()
        elif device.live and roll < 0.52:
            free()
        elif len(device.live) < 400:
            allocate()

    total = device.total
    print("expect devices/0/peak/bytes %d" % total.peak)
    print("expect devices/0/peak/event %d" % device.peak_event)
    print("expect devices/0/live_at_exit_bytes %d" % total.live)
    print("expect devices/0/live_at_exit_allocations %d" % len(device.live))
    print("expect devices/0/allocations %d" % total.allocations)
    print("expect devices/0/frees %d" % total.frees)
    print("expect devices/0/bytes_allocated %d" % total.bytes_allocated)
    print("expect tracer/events %d" % device.events)
    for name, figures in sorted(device.tags.items()):
        if figures.allocations or figures.peak:
            values = [figures.peak, figures.at_peak, figures.live, figures.allocations,
                      figures.frees, figures.bytes_allocated]
            for field, value in zip(FIELDS, values):
                print("expect_tag devices/0 %s %s %d" % (name, field, value))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: random_tags.py SEED [CALLS]")
    main(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 3000)
