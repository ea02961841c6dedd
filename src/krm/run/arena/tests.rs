//! The arena under direct calls: size classes, reuse, growth, spills, threads, and the debug
//! checks of every free.

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
    // SAFETY: blocks are used within their layouts' sizes and freed once, with the layouts they were asked with.
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
    // SAFETY: each block is written and read within its size, and freed once with its current layout.
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
    // SAFETY: blocks are freed once, with the layouts they were asked with; none is written.
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
        // SAFETY: `p` is a live block of at least `l.size()` bytes, all written.
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
                // SAFETY: `l` has a non-zero size.
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
                // SAFETY: `p` is a new block of at least `size` bytes.
                unsafe { p.write_bytes(tag, size) };
                live.push((p, l, tag));
            }
            2 if !live.is_empty() => {
                let i = next() as usize % live.len();
                let (p, l, old) = live.swap_remove(i);
                check(p, l, old);
                let new_size = 1 + next() as usize % 4000;
                // SAFETY: `p` is live with layout `l`, and `new_size` is non-zero and small.
                let q = unsafe { a.realloc(p, l, new_size) };
                let kept = l.size().min(new_size);
                // SAFETY: `q` holds at least `kept` bytes, copied from the old block.
                let bytes = unsafe { std::slice::from_raw_parts(q, kept) };
                assert!(bytes.iter().all(|&b| b == old), "realloc lost bytes");
                // SAFETY: `q` is a block of at least `new_size` bytes.
                unsafe { q.write_bytes(tag, new_size) };
                live.push((q, layout(new_size, l.align()), tag));
            }
            _ if !live.is_empty() => {
                let i = next() as usize % live.len();
                let (p, l, t) = live.swap_remove(i);
                check(p, l, t);
                // SAFETY: `p` is live with layout `l`, and freed once (removed from `live`).
                unsafe { a.dealloc(p, l) };
            }
            _ => {}
        }
    }
    for (p, l, t) in live {
        check(p, l, t);
        // SAFETY: each remaining block is live with its layout, and freed once.
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
                    // SAFETY: each block is written and read within its size, then freed once with its layout.
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

// Debug builds check every block given back (`Arena::check`); `cargo test` builds with debug
// assertions, so each misuse below panics with what it found.

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "DoubleFree")]
fn a_double_free_panics() {
    let a = arena::<4096>();
    // SAFETY: not sound on purpose: the second free is the misuse the check must catch before
    // it touches the block.
    unsafe {
        let p = a.alloc(layout(24, 8));
        a.dealloc(p, layout(24, 8));
        a.dealloc(p, layout(24, 8));
    }
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "Misaligned")]
fn a_pointer_inside_a_block_panics() {
    let a = arena::<4096>();
    // SAFETY: not sound on purpose: a pointer into the middle of a block, caught by the check.
    unsafe {
        let p = a.alloc(layout(64, 8));
        a.dealloc(p.add(8), layout(32, 8));
    }
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "NotABlock")]
fn a_pointer_to_no_block_panics() {
    let a = arena::<4096>();
    // SAFETY: not sound on purpose: an aligned pointer into the region where no block starts
    // (past the part handed out), caught by the check.
    unsafe {
        let p = a.alloc(layout(64, 8));
        a.dealloc(p.add(1024), layout(16, 8));
    }
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "WrongClass { handed_out: 1, given_back: 0 }")]
fn a_free_with_another_size_panics() {
    let a = arena::<4096>();
    // SAFETY: not sound on purpose: a block of 32 bytes given back as one of 16.
    unsafe {
        let p = a.alloc(layout(32, 8));
        a.dealloc(p, layout(16, 8));
    }
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "DoubleFree")]
fn a_realloc_of_a_freed_block_panics() {
    let a = arena::<4096>();
    // SAFETY: not sound on purpose: a freed block handed to realloc, caught by the check.
    unsafe {
        let p = a.alloc(layout(32, 8));
        a.dealloc(p, layout(32, 8));
        a.realloc(p, layout(32, 8), 64);
    }
}

/// The checks follow blocks through reuse and growth: a freed block handed out again, and a
/// block grown where it is, can be freed once more without a false alarm.
#[test]
fn reused_and_grown_blocks_are_freed_cleanly() {
    let a = arena::<4096>();
    // SAFETY: every block is freed once, with its current layout.
    unsafe {
        let p = a.alloc(layout(32, 8));
        a.dealloc(p, layout(32, 8));
        let q = a.alloc(layout(32, 8));
        assert_eq!(p, q);
        let r = a.realloc(q, layout(32, 8), 500);
        assert_eq!(r, q, "the last block grows where it is");
        a.dealloc(r, layout(500, 8));
    }
}
