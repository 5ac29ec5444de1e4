//! A folder of text files as a zip archive (stored, not compressed: infrastructure files are a
//! few kilobytes), for the Design tab to download. UTF-8 names, one folder.

/// The zip of `files` (name, contents), each under `folder/`.
pub fn zip(folder: &str, files: &[(String, String)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, contents) in files {
        let path = format!("{folder}/{name}");
        let data = contents.as_bytes();
        let crc = crc32fast::hash(data);
        let offset = out.len() as u32;
        let size = data.len() as u32;
        // Local header: version 2.0, UTF-8 names (bit 11), stored, dated 1980-01-01.
        out.extend(0x0403_4b50u32.to_le_bytes());
        out.extend(header_fields(crc, size, &path));
        out.extend(path.as_bytes());
        out.extend(data);
        central.extend(0x0201_4b50u32.to_le_bytes());
        central.extend(20u16.to_le_bytes()); // made by
        central.extend(header_fields(crc, size, &path));
        central.extend([0u8; 8]); // comment length, disk, internal and external attributes (2+2+2+2)
        central.extend([0u8; 2]); // the rest of the external attributes
        central.extend(offset.to_le_bytes());
        central.extend(path.as_bytes());
    }
    let central_offset = out.len() as u32;
    let central_size = central.len() as u32;
    out.extend(central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u8; 4]); // this disk, the central directory's disk
    let count = files.len() as u16;
    out.extend(count.to_le_bytes());
    out.extend(count.to_le_bytes());
    out.extend(central_size.to_le_bytes());
    out.extend(central_offset.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

/// The fields a local header and a central directory entry share, from "version needed" to the
/// extra field's length.
fn header_fields(crc: u32, size: u32, path: &str) -> Vec<u8> {
    let mut fields = Vec::with_capacity(26);
    fields.extend(20u16.to_le_bytes()); // version needed
    fields.extend(0x0800u16.to_le_bytes()); // UTF-8 names
    fields.extend(0u16.to_le_bytes()); // stored
    fields.extend(0u16.to_le_bytes()); // time
    fields.extend(0x0021u16.to_le_bytes()); // date: 1980-01-01
    fields.extend(crc.to_le_bytes());
    fields.extend(size.to_le_bytes());
    fields.extend(size.to_le_bytes());
    fields.extend((path.len() as u16).to_le_bytes());
    fields.extend(0u16.to_le_bytes()); // extra field
    fields
}

#[cfg(test)]
mod tests {
    use super::zip;

    /// Read back through the central directory, as an unzip tool does.
    #[test]
    fn the_central_directory_finds_every_file_and_its_checksum_holds() {
        let files = vec![("a.txt".to_string(), "hello".to_string()), ("cdk/b.ts".to_string(), "ünïcode".to_string())];
        let bytes = zip("design", &files);
        let end = bytes.len() - 22;
        let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize;
        let u32_at = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize;
        assert_eq!(u32_at(end), 0x0605_4b50);
        assert_eq!(u16_at(end + 10), 2);
        let mut at = u32_at(end + 16);
        for (name, contents) in &files {
            assert_eq!(u32_at(at), 0x0201_4b50);
            let length = u16_at(at + 28);
            assert_eq!(&bytes[at + 46..at + 46 + length], format!("design/{name}").as_bytes());
            let local = u32_at(at + 42);
            let data_at = local + 30 + u16_at(local + 26);
            let data = &bytes[data_at..data_at + u32_at(at + 20)];
            assert_eq!(data, contents.as_bytes());
            assert_eq!(crc32fast::hash(data) as usize, u32_at(at + 16));
            at += 46 + length;
        }
    }
}
