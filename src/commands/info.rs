//! `ssdfade info TARGET [--json]`: print what [`crate::device::inspect`] finds about a target, as a
//! table (unknowns shown as unknown) or one JSON object. Read-only: safe on any device, the
//! system disk included.

use crate::device::inspect::{gather, DriveInfo};

/// Runs `ssdfade info`.
pub fn run(target: &str, json: bool) -> anyhow::Result<()> {
    let info = gather(target)?;
    if json {
        crate::outln!("{}", serde_json::to_string_pretty(&info)?)?;
    } else {
        crate::out!("{}", table(&info))?;
    }
    Ok(())
}

fn or_unknown<T: ToString>(v: &Option<T>) -> String {
    v.as_ref()
        .map_or_else(|| "unknown".to_string(), ToString::to_string)
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn bytes_field(v: Option<u64>) -> String {
    v.map_or_else(
        || "unknown".to_string(),
        |n| format!("{} ({n} bytes)", crate::units::format_bytes(n)),
    )
}

/// The human table `info` prints.
pub fn table(i: &DriveInfo) -> String {
    let mut rows: Vec<(&str, String)> = vec![
        ("path", i.path.clone()),
        ("kind", i.kind.clone()),
        ("model", or_unknown(&i.model)),
        ("serial", or_unknown(&i.serial)),
        ("firmware", or_unknown(&i.firmware)),
        ("capacity", bytes_field(i.size_bytes)),
        (
            "block size",
            format!(
                "logical {}, physical {}",
                or_unknown(&i.logical_block),
                or_unknown(&i.physical_block)
            ),
        ),
        (
            "rotational",
            i.rotational.map_or("unknown".into(), |r| yes_no(r).into()),
        ),
        ("write cache", or_unknown(&i.write_cache)),
        ("FUA", i.fua.map_or("unknown".into(), |r| yes_no(r).into())),
    ];
    if let Some(w) = &i.wwn {
        rows.insert(4, ("WWN", w.clone()));
    }
    if let Some(d) = &i.partition_of {
        rows.push(("partition of", format!("/dev/{d}")));
    }
    if let Some(b) = &i.backing_device {
        rows.push(("backing device", format!("/dev/{b}")));
    }
    rows.push((
        "discard",
        match &i.discard {
            Some(d) if d.supported => format!(
                "yes, granularity {}, max {} per request",
                or_unknown(&d.granularity),
                bytes_field(d.max_bytes)
            ),
            Some(_) => "no".into(),
            None if i.kind == "file" => "punch holes (fallocate)".into(),
            None => "unknown".into(),
        },
    ));
    if let Some(d) = &i.discard {
        rows.push((
            "write zeroes",
            match d.write_zeroes_max_bytes {
                Some(0) => "no (BLKZEROOUT falls back to writing zeros)".into(),
                None => "unknown".into(),
                v => format!("max {} per request", bytes_field(v)),
            },
        ));
    }
    if let Some(p) = i.power.as_ref().and_then(crate::device::power::text) {
        rows.push(("power management", p));
    }
    rows.push(("ATA security", ata_line(i)));
    rows.push(("NVMe erase", nvme_line(i)));
    rows.push((
        "in use",
        i.in_use.clone().unwrap_or_else(|| "no".to_string()),
    ));
    rows.push((
        "signature",
        i.signature
            .clone()
            .unwrap_or_else(|| "none found".to_string()),
    ));
    let w = &i.wear;
    rows.push(("wear source", w.source.clone()));
    let pct = |v: Option<u32>| v.map_or("unknown".to_string(), |p| format!("{p} %"));
    rows.push(("percentage used", pct(w.percentage_used)));
    rows.push(("life left", pct(w.life_left_percent)));
    rows.push(("host writes", bytes_field(w.host_bytes_written)));
    rows.push(("NAND writes", bytes_field(w.nand_bytes_written)));
    rows.push(("host reads", bytes_field(w.host_bytes_read)));
    rows.push(("P/E cycles", or_unknown(&w.erase_cycles)));
    rows.push(("media errors", or_unknown(&w.media_errors)));
    rows.push(("power-on hours", or_unknown(&w.power_on_hours)));
    rows.push(("unsafe shutdowns", or_unknown(&w.unsafe_shutdowns)));
    rows.push(("available spare", pct(w.available_spare_percent)));
    rows.push((
        "temperature",
        w.temperature_c
            .map_or("unknown".into(), |t| format!("{t} °C")),
    ));
    let mut out = String::new();
    for (k, v) in rows {
        out.push_str(&format!("{k:<18}{v}\n"));
    }
    for a in &w.attributes {
        out.push_str(&format!(
            "{:<18}{} {} value {} worst {} thresh {} raw {} ({})\n",
            "  attribute", a.id, a.name, a.value, a.worst, a.thresh, a.raw, a.meaning
        ));
    }
    for n in i.notes.iter().chain(&w.notes) {
        out.push_str(&format!("{:<18}{n}\n", "note"));
    }
    out
}

fn ata_line(i: &DriveInfo) -> String {
    match &i.ata_security {
        Some(s) if !s.supported => "not supported".into(),
        Some(s) => {
            let minutes = |m: Option<u32>| m.map_or("unknown".to_string(), |m| format!("{m} min"));
            format!(
                "supported, enabled {}, locked {}, frozen {}, enhanced erase {}; erase time {} (enhanced {})",
                yes_no(s.enabled),
                yes_no(s.locked),
                yes_no(s.frozen),
                yes_no(s.enhanced_erase),
                minutes(s.erase_minutes),
                minutes(s.enhanced_erase_minutes)
            )
        }
        None if i.kind == "sata" => "unknown".into(),
        None => "n/a (not an ATA drive)".into(),
    }
}

fn nvme_line(i: &DriveInfo) -> String {
    let Some(n) = &i.nvme else {
        return "n/a (not an NVMe drive)".into();
    };
    let Some(c) = &n.caps else {
        return format!("unknown (nsid {})", or_unknown(&n.nsid));
    };
    let mut sanitize: Vec<&str> = Vec::new();
    if c.sanitize_block {
        sanitize.push("block");
    }
    if c.sanitize_crypto {
        sanitize.push("crypto");
    }
    if c.sanitize_overwrite {
        sanitize.push("overwrite");
    }
    format!(
        "nsid {}, LBA format {}; Format NVM {}{}{}; Sanitize {}",
        or_unknown(&n.nsid),
        or_unknown(&n.lba_format),
        yes_no(c.format_nvm),
        if c.format_crypto_erase {
            " (crypto erase too)"
        } else {
            ""
        },
        if c.format_all_namespaces {
            ", applies to all namespaces"
        } else {
            ""
        },
        if sanitize.is_empty() {
            "not supported".to_string()
        } else {
            sanitize.join(", ")
        }
    )
}
