//! The header `--verify` puts in every block it writes: the block's offset, its write
//! generation, the run's tag and a CRC-32 of the whole block.
//!
//! It takes bytes 16..36 of the block, right after the first sector's 16-byte stamp (see
//! [`crate::pattern`]), which stays, so every sector is still unique. The fields are XORed with
//! keys drawn from that stamp, so the header looks as random as the rest and the block stays
//! incompressible; the CRC covers the stamp, so a damaged stamp shows as a bad checksum.

use crate::pattern::mix64;

/// Where the header starts and ends in the block.
const START: usize = 16;
const CRC_AT: usize = 32;
pub const END: usize = 36;

/// What a block's header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub offset: u64,
    pub generation: u32,
    pub tag: u32,
}

/// The three keys of a block, from its first eight bytes.
fn keys(block: &[u8]) -> (u64, u64, u32) {
    let a = mix64(u64::from_le_bytes(block[..8].try_into().expect("8 bytes")));
    let b = mix64(a ^ 0x6865_6164_6572);
    (a, b, mix64(b) as u32)
}

fn crc(block: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&block[..CRC_AT]);
    h.update(&block[END..]);
    h.finalize()
}

/// Writes `header` into `block` (rendered write data of at least 512 bytes) and seals it.
pub fn stamp(block: &mut [u8], header: Header) {
    let (k1, k2, k3) = keys(block);
    let gen_tag = u64::from(header.generation) | u64::from(header.tag) << 32;
    block[START..START + 8].copy_from_slice(&(header.offset ^ k1).to_le_bytes());
    block[START + 8..CRC_AT].copy_from_slice(&(gen_tag ^ k2).to_le_bytes());
    let sum = crc(block) ^ k3;
    block[CRC_AT..END].copy_from_slice(&sum.to_le_bytes());
}

/// The header of `block`, or `None` when its checksum does not match its bytes.
pub fn read(block: &[u8]) -> Option<Header> {
    let (k1, k2, k3) = keys(block);
    let field = |at: usize| u64::from_le_bytes(block[at..at + 8].try_into().expect("8 bytes"));
    let sum = u32::from_le_bytes(block[CRC_AT..END].try_into().expect("4 bytes")) ^ k3;
    if sum != crc(block) {
        return None;
    }
    let gen_tag = field(START + 8) ^ k2;
    Some(Header {
        offset: field(START) ^ k1,
        generation: gen_tag as u32,
        tag: (gen_tag >> 32) as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::{make_pool, Pattern, PatternGen};

    fn block() -> Vec<u8> {
        let pool = make_pool(3, 4096).unwrap();
        let mut g = PatternGen::new(Pattern::Random, false, pool, 3, 0);
        let mut buf = vec![0u8; 4096];
        let c = g.next_content();
        g.render(&c, &mut buf);
        buf
    }

    #[test]
    fn a_stamped_block_reads_back_and_any_flipped_byte_is_caught() {
        let mut b = block();
        let h = Header {
            offset: 1 << 33,
            generation: 7,
            tag: 0xabcd,
        };
        stamp(&mut b, h);
        assert_eq!(read(&b), Some(h));
        for at in [0, 5, 17, 33, 40, 4095] {
            let mut bad = b.clone();
            bad[at] ^= 0x10;
            assert_eq!(read(&bad), None, "byte {at} flipped");
        }
    }

    #[test]
    fn the_header_keeps_the_stamp_and_looks_random() {
        let plain = block();
        let mut b = plain.clone();
        stamp(
            &mut b,
            Header {
                offset: 0,
                generation: 1,
                tag: 1,
            },
        );
        assert_eq!(b[..START], plain[..START]);
        // Small numbers are hidden by the keys: no run of zero bytes in the header.
        assert!(b[START..END].windows(3).all(|w| w != [0, 0, 0]));
    }
}
