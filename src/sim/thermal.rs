//! Heat in a simulated drive (`thermal=m2|dc`): the power its work draws, one thermal
//! resistance and heat capacity to the air around it, and the NVMe thermal-management steps of
//! its class (TMT1 light, TMT2 heavy throttling) that slow it down when it gets hot.
//!
//! The drive is one lump: `C·dT/dt = P − (T − ambient)/R`, with `P` the idle power plus the
//! energy of the NAND programs, reads and erases and of the commands over the time they took.
//! Over a step of constant power the temperature moves exponentially towards
//! `ambient + P·R` with time constant `R·C`. Above TMT1 (TMT2) the controller runs at
//! `tmt1_speed` (`tmt2_speed`) of its full speed until the temperature falls `HYSTERESIS` °C
//! below the step's threshold; every entry into a step is counted and its time kept, as NVMe's
//! SMART / health log counts them. The model has no randomness: a seed gives the same run.
//!
//! Two classes: a passively cooled M.2 client drive (no heatsink, in a laptop) that reaches its
//! throttle steps within minutes of a sustained write, and a datacenter U.2 drive in a server's
//! airflow that does not reach them at its full write rate.

use super::device::Activity;
use crate::drive::Health;

/// Degrees the temperature must fall below a step's threshold to leave the step.
const HYSTERESIS: f64 = 2.0;

/// The cooling and power of one class of drive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThermalClass {
    /// `thermal=` value.
    pub name: &'static str,
    pub ambient_c: f64,
    /// Power of the powered-on, idle drive (controller, DRAM, link), W.
    pub idle_w: f64,
    /// Energy per NAND page (4 KiB) programmed, read, and per block erased, µJ; per command.
    pub program_uj: f64,
    pub read_uj: f64,
    pub erase_uj: f64,
    pub command_uj: f64,
    /// Thermal resistance to ambient, °C/W, and heat capacity, J/°C.
    pub r_c_per_w: f64,
    pub c_j_per_c: f64,
    /// Warning composite temperature (WCTEMP) and the two throttle steps' thresholds, °C.
    pub warning_c: f64,
    pub critical_c: f64,
    pub tmt1_c: f64,
    pub tmt2_c: f64,
    /// The share of full speed the controller keeps in each step.
    pub tmt1_speed: f64,
    pub tmt2_speed: f64,
}

/// The classes `thermal=` names.
pub const CLASSES: [ThermalClass; 2] = [
    // A bare M.2 2280 drive in a laptop: a few grams of board and chips, little copper to the
    // chassis. About 7 W at a sustained write puts its equilibrium near 100 °C.
    ThermalClass {
        name: "m2",
        ambient_c: 35.0,
        idle_w: 1.2,
        program_uj: 14.0,
        read_uj: 2.0,
        erase_uj: 40.0,
        command_uj: 1.5,
        r_c_per_w: 9.0,
        c_j_per_c: 12.0,
        warning_c: 75.0,
        critical_c: 85.0,
        tmt1_c: 77.0,
        tmt2_c: 82.0,
        tmt1_speed: 0.5,
        tmt2_speed: 0.25,
    },
    // A U.2 drive with a metal case in a server's front-to-back airflow.
    ThermalClass {
        name: "dc",
        ambient_c: 30.0,
        idle_w: 5.0,
        program_uj: 14.0,
        read_uj: 2.0,
        erase_uj: 40.0,
        command_uj: 1.5,
        r_c_per_w: 2.0,
        c_j_per_c: 150.0,
        warning_c: 70.0,
        critical_c: 80.0,
        tmt1_c: 72.0,
        tmt2_c: 78.0,
        tmt1_speed: 0.5,
        tmt2_speed: 0.25,
    },
];

/// The class named `name`, if any.
pub fn class(name: &str) -> Option<ThermalClass> {
    CLASSES.into_iter().find(|c| c.name == name)
}

/// A drive's temperature and thermal-management counters.
#[derive(Clone, Debug, PartialEq)]
pub struct Thermal {
    class: ThermalClass,
    temp_c: f64,
    /// 0 full speed, 1 TMT1, 2 TMT2.
    step: u8,
    tmt_count: [u64; 2],
    tmt_s: [f64; 2],
    warning_s: f64,
    critical_s: f64,
}

impl Thermal {
    /// A drive of `class` that has stood idle long enough to settle.
    pub fn new(class: ThermalClass) -> Thermal {
        Thermal {
            class,
            temp_c: class.ambient_c + class.idle_w * class.r_c_per_w,
            step: 0,
            tmt_count: [0; 2],
            tmt_s: [0.0; 2],
            warning_s: 0.0,
            critical_s: 0.0,
        }
    }

    /// How many times longer the controller takes for its work now (1 at full speed).
    pub fn slowdown(&self) -> f64 {
        match self.step {
            0 => 1.0,
            1 => 1.0 / self.class.tmt1_speed,
            _ => 1.0 / self.class.tmt2_speed,
        }
    }

    /// Energy (J) of work `a` of a drive whose every simulated I/O stands for `scale` host I/Os
    /// and whose pages hold `slots_per_page` slots.
    pub fn energy_j(&self, a: &Activity, slots_per_page: u64, scale: u32) -> f64 {
        let c = &self.class;
        let pages = a.nand_slots(slots_per_page) as f64 / slots_per_page as f64;
        let commands = (a.aligned_writes + a.unaligned_writes + a.reads) as f64;
        let uj = pages * c.program_uj
            + a.read_pages as f64 * c.read_uj
            + a.work.erases as f64 * c.erase_uj
            + commands * c.command_uj;
        uj * 1e-6 * f64::from(scale)
    }

    /// `seconds` of the clock pass in which the drive did work of `energy_j` joules (spread
    /// evenly): the temperature moves, the step follows it, the counters count.
    pub fn advance(&mut self, seconds: f64, energy_j: f64) {
        if seconds <= 0.0 {
            return;
        }
        let c = &self.class;
        let power = c.idle_w + energy_j / seconds;
        let settle = c.ambient_c + power * c.r_c_per_w;
        let start = self.temp_c;
        self.temp_c = settle + (start - settle) * (-seconds / (c.r_c_per_w * c.c_j_per_c)).exp();
        // Time above a threshold within the step: counted whole when the step ends above it
        // (steps are a batch of I/Os, far shorter than the time constant).
        if self.temp_c >= c.warning_c {
            self.warning_s += seconds;
        }
        if self.temp_c >= c.critical_c {
            self.critical_s += seconds;
        }
        if self.step > 0 {
            self.tmt_s[usize::from(self.step - 1)] += seconds;
        }
        let step = if self.temp_c >= c.tmt2_c
            || (self.step == 2 && self.temp_c > c.tmt2_c - HYSTERESIS)
        {
            2
        } else if self.temp_c >= c.tmt1_c || (self.step >= 1 && self.temp_c > c.tmt1_c - HYSTERESIS)
        {
            1
        } else {
            0
        };
        if step > self.step {
            // Entering TMT2 from full speed passes through TMT1 too.
            for s in self.step + 1..=step {
                self.tmt_count[usize::from(s - 1)] += 1;
            }
        }
        self.step = step;
    }

    /// The state a `state=` file keeps (8 little-endian words): temperature, step, the TMT
    /// counts and seconds, and the seconds above the warning and critical thresholds.
    pub fn to_words(&self) -> [u64; 8] {
        [
            self.temp_c.to_bits(),
            u64::from(self.step),
            self.tmt_count[0],
            self.tmt_count[1],
            self.tmt_s[0].to_bits(),
            self.tmt_s[1].to_bits(),
            self.warning_s.to_bits(),
            self.critical_s.to_bits(),
        ]
    }

    /// A drive of `class` in the state [`Thermal::to_words`] kept; None when the words cannot
    /// be a drive's (a damaged file).
    pub fn from_words(class: ThermalClass, w: &[u64]) -> Option<Thermal> {
        let f = |i: usize| Some(f64::from_bits(*w.get(i)?)).filter(|x| x.is_finite());
        let t = Thermal {
            class,
            temp_c: f(0).filter(|t| (-60.0..=200.0).contains(t))?,
            step: u8::try_from(*w.get(1)?).ok().filter(|s| *s <= 2)?,
            tmt_count: [*w.get(2)?, *w.get(3)?],
            tmt_s: [f(4)?, f(5)?],
            warning_s: f(6)?,
            critical_s: f(7)?,
        };
        [t.tmt_s[0], t.tmt_s[1], t.warning_s, t.critical_s]
            .iter()
            .all(|&x| x >= 0.0)
            .then_some(t)
    }

    /// The reading a host would get now, with the drive's lifetime byte counters.
    pub fn health(&self, host_bytes: u64, nand_bytes: u64) -> Health {
        Health {
            temperature_c: Some((self.temp_c * 10.0).round() / 10.0),
            warning_c: Some(self.class.warning_c),
            tmt1_count: Some(self.tmt_count[0]),
            tmt2_count: Some(self.tmt_count[1]),
            tmt1_s: Some(self.tmt_s[0]),
            tmt2_s: Some(self.tmt_s[1]),
            warning_temp_min: Some((self.warning_s / 60.0) as u64),
            critical_temp_min: Some((self.critical_s / 60.0) as u64),
            host_bytes_written: Some(host_bytes),
            host_bytes_read: None,
            nand_bytes_written: Some(nand_bytes),
            throttle_events: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Full write power for `seconds`, in steps of a tenth of a second, given as watts.
    fn heat(t: &mut Thermal, watts: f64, seconds: f64) {
        for _ in 0..(seconds * 10.0) as u64 {
            let w = watts / t.slowdown();
            t.advance(0.1, (w - t.class.idle_w).max(0.0) * 0.1);
        }
    }

    #[test]
    fn a_passive_m2_drive_throttles_under_sustained_power_and_cools_back_to_full_speed() {
        let m2 = class("m2").unwrap();
        let mut t = Thermal::new(m2);
        assert_eq!(t.slowdown(), 1.0);
        heat(&mut t, 7.0, 600.0);
        let h = t.health(0, 0);
        assert!(h.tmt1_count.unwrap() >= 1, "{h:?}");
        assert!(h.tmt1_s.unwrap() > 0.0, "{h:?}");
        assert!(h.temperature_c.unwrap() > m2.tmt1_c - HYSTERESIS, "{h:?}");
        assert!(t.slowdown() > 1.0);
        heat(&mut t, m2.idle_w, 1200.0);
        assert_eq!(t.slowdown(), 1.0);
        let settled = m2.ambient_c + m2.idle_w * m2.r_c_per_w;
        assert!((t.temp_c - settled).abs() < 0.5, "{}", t.temp_c);
    }

    #[test]
    fn a_datacenter_drive_stays_below_its_steps_at_the_same_power() {
        let dc = class("dc").unwrap();
        let mut t = Thermal::new(dc);
        heat(&mut t, 12.0, 3600.0);
        let h = t.health(0, 0);
        assert_eq!((h.tmt1_count, h.tmt2_count), (Some(0), Some(0)));
        assert!(h.temperature_c.unwrap() < dc.warning_c, "{h:?}");
    }
}
