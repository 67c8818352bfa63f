//! The font every inline chart's text is drawn in: DejaVu Sans, the face the charts measure
//! their label boxes with, as a subset (Latin-1, Greek, punctuation; scripts/font-subset.sh)
//! embedded in the page as base64 `@font-face` rules. Without it a browser draws the SVG's
//! `sans-serif` in its own face, wider or narrower than the boxes around the text.

/// The family name the page gives the embedded faces.
pub const FAMILY: &str = "ssdfade DejaVu Sans";

const REGULAR: &[u8] = include_bytes!("fonts/dejavu-sans-subset.woff2");
const BOLD: &[u8] = include_bytes!("fonts/dejavu-sans-bold-subset.woff2");

/// The CSS that embeds both faces and draws every chart's text in them.
pub fn css() -> String {
    let face = |weight: &str, woff2: &[u8]| {
        format!(
            "@font-face{{font-family:\"{FAMILY}\";font-weight:{weight};\
             src:url(data:font/woff2;base64,{}) format(\"woff2\")}}",
            base64(woff2)
        )
    };
    format!(
        "{}{}svg text{{font-family:\"{FAMILY}\",sans-serif;font-kerning:normal}}",
        face("normal", REGULAR),
        face("bold", BOLD)
    )
}

/// `bytes` in standard base64 with padding (RFC 4648).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> shift) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648s() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    /// Both faces are embedded as WOFF2 subsets small enough for every report, and the page's
    /// CSS draws every chart's text in them.
    #[test]
    fn the_embedded_faces_are_woff2_of_the_charts_font() {
        for face in [REGULAR, BOLD] {
            assert_eq!(&face[..4], b"wOF2");
            assert!(face.len() < 24_000, "{} bytes", face.len());
        }
        let css = css();
        assert!(css.contains("font-weight:bold") && css.contains("svg text{"));
    }
}
