//! The FTL's large tables (the mapping and the reverse map: hundreds of megabytes on a full-size
//! drive) in memory backed by transparent huge pages where the kernel offers them on request
//! (`madvise` mode): every write touches them at random, and with 4 KiB pages nearly every such
//! touch also misses the TLB. The contents and results are the same either way.

/// Tables smaller than this keep ordinary pages (they fit the TLB's reach anyway).
const WORTH_IT: usize = 4 << 20;

/// `len` copies of `value` in memory advised for huge pages before it is first touched.
pub fn filled<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    advise(&v);
    v.resize(len, value);
    v
}

/// Asks the kernel to back the vector's whole allocation with huge pages from its next page
/// fault on; a kernel without transparent huge pages ignores it.
fn advise<T>(v: &Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < WORTH_IT {
        return;
    }
    let page = 4096;
    let start = v.as_ptr() as usize;
    let first = start.next_multiple_of(page);
    let end = (start + bytes) / page * page;
    // SAFETY: the range lies inside the vector's own allocation, and MADV_HUGEPAGE changes
    // only how the kernel backs it, never its contents.
    unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_table_holds_its_value_everywhere() {
        let v = filled(3 << 20, [7u32, 9]);
        assert_eq!(v.len(), 3 << 20);
        assert!(v.iter().all(|&e| e == [7, 9]));
    }
}
