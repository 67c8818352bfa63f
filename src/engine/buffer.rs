//! Page-aligned I/O buffers, as O_DIRECT requires.

use std::alloc::{alloc_zeroed, dealloc, Layout};

const ALIGN: usize = 4096;

/// A zeroed, 4096-byte-aligned heap buffer.
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the buffer is plain owned memory.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// Allocates `len` bytes (rounded up to a whole page).
    pub fn new(len: usize) -> Self {
        let layout = Layout::from_size_align(len.max(1).next_multiple_of(ALIGN), ALIGN)
            .expect("buffer layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(
            !ptr.is_null(),
            "out of memory allocating an I/O buffer of {len} bytes"
        );
        AlignedBuf { ptr, layout }
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for layout.size() bytes for our lifetime.
        unsafe { std::slice::from_raw_parts(self.ptr, self.layout.size()) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and we hold the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}
