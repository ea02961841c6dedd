//! The binary's allocator. A run on a small package makes a few thousand small allocations
//! and then exits: through glibc's malloc they cost about 15% of the call's instructions, and
//! through musl's (the image's libc) twice that plus a hundred `mmap`/`munmap` calls. Porch
//! starts one process per call, so that is paid on every call.
//!
//! An [`Arena`] serves blocks of up to [`LARGEST_BLOCK`] bytes from a fixed region of
//! [`ARENA_BYTES`] in `.bss` (no system call; a page costs memory, and a fault of more than a
//! microsecond, only once written): each request is rounded up to one of a few sizes per power
//! of two, freed blocks are kept on one list per size and reused, new ones are cut from the
//! region's unused end, and the last one cut grows where it is. Larger or over-aligned requests,
//! and every request once the region is used up, go to the system allocator, so a large input
//! runs as before with at most [`ARENA_BYTES`] more memory.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, Ordering};

/// Bytes of the region in `.bss` that the arena serves small blocks from: 8 MiB, enough for
/// every allocation of a package of a few hundred kilobytes.
pub const ARENA_BYTES: usize = 8 << 20;

/// The largest block the arena serves (512 KiB, the output's write buffer); larger requests go
/// to the system allocator.
pub const LARGEST_BLOCK: usize = 512 << 10;

/// The smallest block, and the alignment of every block: a free block holds the pointer to
/// the next free block of its size, and 16 is the most any type the run allocates asks for.
const ALIGN: usize = 16;

/// One free list per block size: 16, 32, 48 and 64 bytes, then four sizes between each power
/// of two and the next (80, 96, 112, 128, 160, ...), up to [`LARGEST_BLOCK`]. A block wastes
/// at most a fifth of itself: every page a call writes costs it more than a microsecond.
const CLASSES: usize = class_of(LARGEST_BLOCK) + 1;

/// The size class of a block of `size` bytes (1 to [`LARGEST_BLOCK`]).
const fn class_of(size: usize) -> usize {
    if size <= 64 {
        return size.div_ceil(16) - 1;
    }
    let s = size - 1;
    let log = (usize::BITS - 1 - s.leading_zeros()) as usize;
    4 + (log - 6) * 4 + ((s >> (log - 2)) & 3)
}

/// [`class_of`] for sizes up to 1 KiB by sixteenths, looked up: the most requests are small.
const SMALL_CLASSES: [u8; 65] = {
    let mut table = [0u8; 65];
    let mut i = 1;
    while i < table.len() {
        table[i] = class_of(i * ALIGN) as u8;
        i += 1;
    }
    table
};

/// The size of the blocks of class `c`.
const fn class_size(c: usize) -> usize {
    if c < 4 {
        return (c + 1) * 16;
    }
    let (log, sub) = ((c - 4) / 4 + 6, (c - 4) % 4);
    (5 + sub) << (log - 2)
}

/// A fixed region of `N` bytes serving small blocks, backed by the system allocator.
pub struct Arena<const N: usize> {
    lock: AtomicBool,
    state: UnsafeCell<State>,
    region: UnsafeCell<Region<N>>,
}

#[repr(C, align(4096))]
struct Region<const N: usize>([u8; N]);

struct State {
    /// Bytes of the region handed out so far (a multiple of [`ALIGN`]).
    used: usize,
    /// The first free block of each size, each holding a pointer to the next.
    free: [*mut u8; CLASSES],
}

// SAFETY: `state` is only touched under `lock`, and each block of `region` is owned by one
// caller at a time (handed out once until it is freed).
unsafe impl<const N: usize> Sync for Arena<N> {}

impl<const N: usize> Default for Arena<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Arena<N> {
    /// An empty arena; as a `static`, it lies in `.bss`.
    pub const fn new() -> Self {
        Arena {
            lock: AtomicBool::new(false),
            state: UnsafeCell::new(State {
                used: 0,
                free: [null_mut(); CLASSES],
            }),
            region: UnsafeCell::new(Region([0; N])),
        }
    }

    fn base(&self) -> *mut u8 {
        self.region.get().cast()
    }

    fn owns(&self, ptr: *mut u8) -> bool {
        let (p, base) = (ptr as usize, self.base() as usize);
        p >= base && p < base + N
    }

    /// The size class of a request the arena serves, or `None` for the system allocator.
    fn class(layout: Layout) -> Option<usize> {
        if layout.size() > LARGEST_BLOCK || layout.align() > ALIGN {
            return None;
        }
        let size = layout.size().max(1);
        Some(match SMALL_CLASSES.get(size.div_ceil(ALIGN)) {
            Some(&c) => usize::from(c),
            None => class_of(size),
        })
    }

    /// Runs `f` on the state, holding the lock. Only the thread doing the run allocates in the
    /// binary, so the lock is never contended there.
    fn locked<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        while self
            .lock
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
        }
        // SAFETY: the lock is held: no other reference to the state exists.
        let r = f(unsafe { &mut *self.state.get() });
        self.lock.store(false, Ordering::Release);
        r
    }

    /// A block of class `c` from the arena, or null when the region is used up.
    fn take(&self, c: usize) -> *mut u8 {
        let size = class_size(c);
        let base = self.base();
        self.locked(|s| {
            let head = s.free[c];
            if !head.is_null() {
                // SAFETY: a free block of this class holds the next free block's address.
                s.free[c] = unsafe { head.cast::<*mut u8>().read() };
                return head;
            }
            if N - s.used < size {
                return null_mut();
            }
            // SAFETY: `used + size <= N`: the block lies inside the region.
            let p = unsafe { base.add(s.used) };
            s.used += size;
            p
        })
    }

    /// Grows the block at `ptr` from class `old` to class `new` where it is, when it is the
    /// last block cut from the region and the region has room: a growing buffer (the input as
    /// it is read, the output as it is written) is then neither copied nor spread over new pages.
    fn grow_at_end(&self, ptr: *mut u8, old: usize, new: usize) -> bool {
        let start = ptr as usize - self.base() as usize;
        self.locked(|s| {
            let fits = start + class_size(new) <= N;
            if start + class_size(old) == s.used && fits {
                s.used = start + class_size(new);
                return true;
            }
            false
        })
    }

    /// Returns a block of class `c` to its free list.
    fn give_back(&self, ptr: *mut u8, c: usize) {
        self.locked(|s| {
            // SAFETY: the block is at least 16 bytes, 16-aligned, and no longer in use.
            unsafe { ptr.cast::<*mut u8>().write(s.free[c]) };
            s.free[c] = ptr;
        })
    }
}

// SAFETY: every block handed out is at least `layout.size()` bytes, aligned to
// `layout.align()`, and in use by one caller until freed; blocks not from the region are the
// system allocator's, and are given back to it.
// Kept out of line: inlined into every allocation site, they would add a megabyte of code.
unsafe impl<const N: usize> GlobalAlloc for Arena<N> {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if let Some(c) = Self::class(layout) {
            let p = self.take(c);
            if !p.is_null() {
                return p;
            }
        }
        system().alloc(layout)
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if let Some(c) = Self::class(layout) {
            let p = self.take(c);
            if !p.is_null() {
                // A reused block holds old bytes.
                p.write_bytes(0, layout.size());
                return p;
            }
        }
        system().alloc_zeroed(layout)
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match Self::class(layout) {
            Some(c) if self.owns(ptr) => self.give_back(ptr, c),
            _ => system().dealloc(ptr, layout),
        }
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !self.owns(ptr) {
            return system().realloc(ptr, layout, new_size);
        }
        // SAFETY: the caller guarantees `new_size`, rounded to `align`, does not overflow.
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        let old = Self::class(layout);
        if old.is_some() && old == Self::class(new_layout) {
            // The block already has room (or more than is now asked for).
            return ptr;
        }
        if let (Some(old), Some(new)) = (old, Self::class(new_layout)) {
            if new > old && self.grow_at_end(ptr, old, new) {
                return ptr;
            }
        }
        let new = self.alloc(new_layout);
        if !new.is_null() {
            std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
            self.dealloc(ptr, layout);
        }
        new
    }
}

/// The system allocator, tuned when first used: a small package never uses it (nor makes
/// glibc set up its heap).
///
/// glibc serves a work thread from an arena of its own, which it maps 64 MiB at a time but
/// makes usable (`mprotect`) only as it grows, a little past each request: tens of thousands
/// of system calls on a large run. A top pad of 64 MiB makes each new heap usable whole at
/// once (on the main thread, each `brk` grows the heap by as much). Only address space is
/// committed: pages still cost memory when first written. musl (the image's libc) has no
/// arenas and no such call.
fn system() -> System {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static TUNED: AtomicBool = AtomicBool::new(false);
        if !TUNED.load(Ordering::Relaxed) && !TUNED.swap(true, Ordering::Relaxed) {
            extern "C" {
                fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
            }
            /// glibc's `M_TOP_PAD`.
            const M_TOP_PAD: std::ffi::c_int = -2;
            // SAFETY: mallopt only sets an allocator parameter (under glibc's own lock).
            unsafe {
                mallopt(M_TOP_PAD, 64 << 20);
            }
        }
    }
    System
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An arena on the heap (built on the stack first, a large one would overflow it): all
    /// zero bytes are an empty arena. Leaked: tests are short.
    fn arena<const N: usize>() -> &'static Arena<N> {
        // SAFETY: zeroed memory is a valid empty `Arena` (unlocked, nothing used, no free
        // blocks); the layout is the arena's own.
        unsafe { &*std::alloc::alloc_zeroed(Layout::new::<Arena<N>>()).cast::<Arena<N>>() }
    }

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    /// Every size has the smallest class that holds it, and every class is a multiple of 16.
    #[test]
    fn size_classes() {
        let mut last = 0;
        for size in 1..=LARGEST_BLOCK {
            let c = class_of(size);
            let looked_up = Arena::<16>::class(layout(size, 1)).unwrap();
            assert_eq!(looked_up, c, "{size}");
            assert!(class_size(c) >= size, "{size} in class {c}");
            assert!(
                c == 0 || class_size(c - 1) < size,
                "{size}: a smaller class holds it"
            );
            assert!(c == last || c == last + 1);
            assert_eq!(class_size(c) % ALIGN, 0);
            assert!(
                size <= 64 || class_size(c) * 4 <= size * 5,
                "{size}: over a fifth wasted"
            );
            last = c;
        }
        assert_eq!(class_size(CLASSES - 1), LARGEST_BLOCK);
        assert_eq!(
            (1..=10).map(class_size).collect::<Vec<_>>(),
            [32, 48, 64, 80, 96, 112, 128, 160, 192, 224]
        );
    }

    #[test]
    fn small_blocks_come_from_the_region_and_are_reused() {
        let a = arena::<4096>();
        unsafe {
            let p = a.alloc(layout(24, 8));
            assert!(a.owns(p));
            let q = a.alloc(layout(32, 8));
            assert_eq!(q as usize - p as usize, 32, "24 bytes take a block of 32");
            a.dealloc(p, layout(24, 8));
            assert_eq!(
                a.alloc(layout(17, 1)),
                p,
                "a freed block serves the next of its size"
            );
        }
    }

    #[test]
    fn the_last_block_grows_where_it_is() {
        let a = arena::<4096>();
        unsafe {
            let first = a.alloc(layout(16, 8));
            let p = a.alloc(layout(100, 8));
            p.write_bytes(7, 100);
            let q = a.realloc(p, layout(100, 8), 1000);
            assert_eq!(q, p, "the last block grows in place");
            assert!(std::slice::from_raw_parts(q, 100).iter().all(|&b| b == 7));
            let after = a.alloc(layout(16, 8));
            assert_eq!(
                after as usize - q as usize,
                1024,
                "the next block follows the grown one"
            );
            let r = a.realloc(q, layout(1000, 8), 2000);
            assert_ne!(r, q, "a block that is no longer last moves");
            assert!(std::slice::from_raw_parts(r, 100).iter().all(|&b| b == 7));
            for (ptr, l) in [(first, 16), (after, 16), (r, 2000)] {
                a.dealloc(ptr, layout(l, 8));
            }
        }
    }

    #[test]
    fn large_over_aligned_and_overflowing_requests_go_to_the_system() {
        let a = arena::<4096>();
        unsafe {
            let big = a.alloc(layout(LARGEST_BLOCK + 1, 8));
            let aligned = a.alloc(layout(64, 64));
            assert!(!a.owns(big) && !a.owns(aligned));
            a.dealloc(big, layout(LARGEST_BLOCK + 1, 8));
            a.dealloc(aligned, layout(64, 64));
            let whole = a.alloc(layout(4096, 16));
            assert!(a.owns(whole));
            let past = a.alloc(layout(16, 16));
            assert!(!a.owns(past), "the region is used up");
            a.dealloc(past, layout(16, 16));
            a.dealloc(whole, layout(4096, 16));
        }
    }

    /// Many live blocks of mixed sizes, grown, shrunk, zeroed and freed in a scrambled order,
    /// spilling into the system allocator: every block keeps its own bytes.
    #[test]
    fn blocks_keep_their_bytes_through_realloc_and_reuse() {
        let a = arena::<{ 1 << 16 }>();
        let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let check = |p: *mut u8, l: Layout, tag: u8| {
            let bytes = unsafe { std::slice::from_raw_parts(p, l.size()) };
            assert!(bytes.iter().all(|&b| b == tag), "a block lost its bytes");
        };
        for round in 0..20_000u32 {
            let r = next();
            let tag = round as u8;
            match r % 4 {
                0 | 1 => {
                    let size = 1 + (next() as usize % if r % 8 == 0 { 3000 } else { 200 });
                    let l = layout(size, 1 << (next() % 5));
                    let zeroed = r % 16 == 1;
                    let p = unsafe {
                        if zeroed {
                            a.alloc_zeroed(l)
                        } else {
                            a.alloc(l)
                        }
                    };
                    if zeroed {
                        check(p, l, 0);
                    }
                    unsafe { p.write_bytes(tag, size) };
                    live.push((p, l, tag));
                }
                2 if !live.is_empty() => {
                    let i = next() as usize % live.len();
                    let (p, l, old) = live.swap_remove(i);
                    check(p, l, old);
                    let new_size = 1 + next() as usize % 4000;
                    let q = unsafe { a.realloc(p, l, new_size) };
                    let kept = l.size().min(new_size);
                    let bytes = unsafe { std::slice::from_raw_parts(q, kept) };
                    assert!(bytes.iter().all(|&b| b == old), "realloc lost bytes");
                    unsafe { q.write_bytes(tag, new_size) };
                    live.push((q, layout(new_size, l.align()), tag));
                }
                _ if !live.is_empty() => {
                    let i = next() as usize % live.len();
                    let (p, l, t) = live.swap_remove(i);
                    check(p, l, t);
                    unsafe { a.dealloc(p, l) };
                }
                _ => {}
            }
        }
        for (p, l, t) in live {
            check(p, l, t);
            unsafe { a.dealloc(p, l) };
        }
    }

    #[test]
    fn threads_share_it() {
        let a = arena::<{ 1 << 20 }>();
        let threads: Vec<_> = (0..4u8)
            .map(|t| {
                std::thread::spawn(move || {
                    for i in 0..5_000usize {
                        let l = layout(8 + (i % 100), 8);
                        unsafe {
                            let p = a.alloc(l);
                            p.write_bytes(t, l.size());
                            let bytes = std::slice::from_raw_parts(p, l.size());
                            assert!(bytes.iter().all(|&b| b == t));
                            a.dealloc(p, l);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }
}
