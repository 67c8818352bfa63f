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
    /// Allocates `len` bytes (rounded up to a whole page); an error (ENOMEM) when the memory
    /// cannot be had, so a worker can end the run as failed instead of aborting.
    pub fn new(len: usize) -> std::io::Result<Self> {
        let out_of_memory = || {
            std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                format!("out of memory allocating an I/O buffer of {len} bytes"),
            )
        };
        let size = len
            .max(1)
            .checked_next_multiple_of(ALIGN)
            .ok_or_else(out_of_memory)?;
        let layout = Layout::from_size_align(size, ALIGN).map_err(|_| out_of_memory())?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(out_of_memory());
        }
        Ok(AlignedBuf { ptr, layout })
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

/// The `count` buffers of `len` bytes that a run's I/Os in flight write from and read into, all
/// allocated before any worker starts, so that a run that cannot have them fails with one line
/// before it begins instead of in a worker thread that races other allocations.
pub fn io_buffers(count: usize, len: usize) -> anyhow::Result<Vec<AlignedBuf>> {
    let mut buffers = Vec::new();
    buffers.try_reserve_exact(count).map_err(|_| {
        anyhow::anyhow!("out of memory allocating an I/O buffer list of {count}: lower --qd")
    })?;
    for i in 0..count {
        let buf = AlignedBuf::new(len).map_err(|e| match count {
            1 => anyhow::anyhow!("{e}: lower --qd or --bs"),
            _ => anyhow::anyhow!("{e} (buffer {} of {count}): lower --qd or --bs", i + 1),
        })?;
        buffers.push(buf);
    }
    Ok(buffers)
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::AlignedBuf;

    #[test]
    fn an_impossible_buffer_is_an_error_not_an_abort() {
        let err = AlignedBuf::new(usize::MAX / 2)
            .err()
            .expect("no such memory");
        assert_eq!(err.kind(), std::io::ErrorKind::OutOfMemory);
        assert!(AlignedBuf::new(usize::MAX).is_err());
        let buf = AlignedBuf::new(5000).unwrap();
        assert_eq!(buf.as_slice().len(), 8192);
        assert!(buf.as_slice().iter().all(|&b| b == 0));
    }
}
