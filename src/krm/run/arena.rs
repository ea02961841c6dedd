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
    /// Debug builds: one tag per [`ALIGN`] bytes of the region, saying whether a block starts
    /// there, its class, and whether it is free (see [`check`]). Null until the first block is
    /// cut; taken from the system allocator (only the pages written cost memory).
    #[cfg(debug_assertions)]
    tags: *mut u8,
}

// SAFETY: `state` is only touched under `lock`, and each block of `region` is owned by one
// caller at a time (handed out once until it is freed).
unsafe impl<const N: usize> Sync for Arena<N> {}

impl<const N: usize> Default for Arena<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// What a debug build found wrong with a block given back.
#[cfg(debug_assertions)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Misuse {
    /// Not a multiple of [`ALIGN`] from the region's start: no block starts there.
    Misaligned,
    /// Aligned, but no block was handed out there.
    NotABlock,
    /// Handed out, and already given back.
    DoubleFree,
    /// Handed out with another size class than the layout it is given back with.
    WrongClass {
        handed_out: usize,
        given_back: usize,
    },
}

/// A tag's bit for a free block; the low bits are the class plus one (0: no block starts here).
#[cfg(debug_assertions)]
const FREE: u8 = 0x80;

impl<const N: usize> Arena<N> {
    /// An empty arena; as a `static`, it lies in `.bss`.
    pub const fn new() -> Self {
        Arena {
            lock: AtomicBool::new(false),
            state: UnsafeCell::new(State {
                used: 0,
                free: [null_mut(); CLASSES],
                #[cfg(debug_assertions)]
                tags: null_mut(),
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

    /// Runs `f` on the state, holding the lock. In the binary, the main thread allocates until
    /// the run starts; then the thread doing the run (the main thread, or the work thread while
    /// the main one waits in `join`) and each CEL compilation's thread (while the thread that
    /// started it waits in `join`). Threads overlap only around one's start and end, so the
    /// lock is rarely contended, and a spin lock costs least when it is not.
    fn locked<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        while self
            .lock
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
        }
        // SAFETY: the lock is held: no other reference to the state exists until it is
        // released below, after `f` returns.
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
            let p = if !head.is_null() {
                // SAFETY: a block on the free list of class `c` is at least 16 bytes,
                // 16-aligned, owned by the list, and holds the next free block's address
                // (written by `give_back`).
                s.free[c] = unsafe { head.cast::<*mut u8>().read() };
                head
            } else {
                if N - s.used < size {
                    return null_mut();
                }
                // SAFETY: `used + size <= N`: the block lies inside the region.
                let p = unsafe { base.add(s.used) };
                s.used += size;
                p
            };
            #[cfg(debug_assertions)]
            set_tag::<N>(s, base, p, c as u8 + 1);
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
                #[cfg(debug_assertions)]
                set_tag::<N>(s, self.base(), ptr, new as u8 + 1);
                return true;
            }
            false
        })
    }

    /// Returns a block of class `c` to its free list; debug builds check it first.
    fn give_back(&self, ptr: *mut u8, c: usize) {
        self.check(ptr, c);
        self.locked(|s| {
            #[cfg(debug_assertions)]
            set_tag::<N>(s, self.base(), ptr, FREE | (c as u8 + 1));
            // SAFETY: the block is one the arena handed out (debug builds check it), at least
            // 16 bytes and 16-aligned, and its owner has given it up: the list owns it now.
            unsafe { ptr.cast::<*mut u8>().write(s.free[c]) };
            s.free[c] = ptr;
        })
    }

    /// Debug builds: panics unless `ptr` is a block of class `c` the arena handed out and that
    /// is still in use: a free of a pointer into the region that is not one, with another
    /// size, or twice. (Through the global allocator the panic cannot unwind: the process
    /// ends with the message.) Release builds check nothing.
    fn check(&self, ptr: *mut u8, c: usize) {
        #[cfg(debug_assertions)]
        {
            let base = self.base();
            let found = self.locked(|s| misuse::<N>(s, base, ptr, c));
            if let Some(m) = found {
                // Outside the lock: the panic allocates.
                panic!("arena: block {ptr:p} given back as class {c}: {m:?}");
            }
        }
        #[cfg(not(debug_assertions))]
        let _ = (ptr, c);
    }
}

/// The tag of the block at `ptr`, in debug builds.
#[cfg(debug_assertions)]
fn set_tag<const N: usize>(s: &mut State, base: *mut u8, ptr: *mut u8, tag: u8) {
    if s.tags.is_null() {
        let tags = Layout::array::<u8>(N / ALIGN).expect("the arena's tags");
        // SAFETY: the layout has a non-zero size (the region is at least one block); the
        // system allocator is not this arena, so the lock held here is not taken again.
        s.tags = unsafe { System.alloc_zeroed(tags) };
        assert!(!s.tags.is_null(), "no memory for the arena's debug tags");
    }
    let i = (ptr as usize - base as usize) / ALIGN;
    // SAFETY: `ptr` lies in the region, so `i < N / ALIGN`, the tags' length.
    unsafe { s.tags.add(i).write(tag) };
}

/// What is wrong with giving back `ptr` as a block of class `c`, in debug builds.
#[cfg(debug_assertions)]
fn misuse<const N: usize>(s: &State, base: *mut u8, ptr: *mut u8, c: usize) -> Option<Misuse> {
    let offset = ptr as usize - base as usize;
    if !offset.is_multiple_of(ALIGN) {
        return Some(Misuse::Misaligned);
    }
    if s.tags.is_null() {
        return Some(Misuse::NotABlock);
    }
    // SAFETY: `ptr` lies in the region (callers check), so the index is below N / ALIGN.
    let tag = unsafe { s.tags.add(offset / ALIGN).read() };
    match tag {
        0 => Some(Misuse::NotABlock),
        t if t & FREE != 0 => Some(Misuse::DoubleFree),
        t if usize::from(t) != c + 1 => Some(Misuse::WrongClass {
            handed_out: usize::from(t) - 1,
            given_back: c,
        }),
        _ => None,
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
        // SAFETY: the caller's layout has a non-zero size (`GlobalAlloc::alloc`'s contract).
        unsafe { system().alloc(layout) }
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if let Some(c) = Self::class(layout) {
            let p = self.take(c);
            if !p.is_null() {
                // A reused block holds old bytes.
                // SAFETY: `p` is a block of at least `layout.size()` bytes, now the caller's.
                unsafe { p.write_bytes(0, layout.size()) };
                return p;
            }
        }
        // SAFETY: as in `alloc`.
        unsafe { system().alloc_zeroed(layout) }
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match Self::class(layout) {
            Some(c) if self.owns(ptr) => self.give_back(ptr, c),
            // SAFETY: `ptr` is not in the region, or its layout is not one the arena serves:
            // the system allocator handed it out, with this layout (the caller's contract).
            _ => unsafe { system().dealloc(ptr, layout) },
        }
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !self.owns(ptr) {
            // SAFETY: a block outside the region is the system allocator's, with `layout`;
            // `new_size` meets `realloc`'s contract (the caller's).
            return unsafe { system().realloc(ptr, layout, new_size) };
        }
        // SAFETY: the caller guarantees `new_size`, rounded to `align`, does not overflow,
        // and `layout.align()` is a power of two.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        let old = Self::class(layout);
        if let Some(c) = old {
            self.check(ptr, c);
        }
        if old.is_some() && old == Self::class(new_layout) {
            // The block already has room (or more than is now asked for).
            return ptr;
        }
        if let (Some(old), Some(new)) = (old, Self::class(new_layout)) {
            if new > old && self.grow_at_end(ptr, old, new) {
                return ptr;
            }
        }
        // SAFETY: `new_layout` has a non-zero size (`realloc`'s contract).
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both blocks hold at least the smaller size, and are distinct (the old
            // one is still in use while the new one is handed out).
            unsafe { std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
            // SAFETY: `ptr` was handed out by this arena with `layout`, and is no longer used.
            unsafe { self.dealloc(ptr, layout) };
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
mod tests;
