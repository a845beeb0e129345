//! The one rule for writing a time or a heartbeat count, pinned to the table that the
//! viewer's and the extension's formatter (`viewer-wasm/www/format.js`) are tested against.

use recording::Measure;
use serde_json::Value;

#[test]
fn every_case_of_the_shared_table_prints_its_text() {
    let table: Value =
        serde_json::from_str(include_str!("../../fixtures/format/values.json")).unwrap();
    let cases = table["cases"].as_array().unwrap();
    assert!(cases.len() > 40, "the table has its cases");
    for case in cases {
        let measure = Measure::parse(case["measure"].as_str().unwrap()).unwrap();
        let value = i128::from(case["value"].as_i64().unwrap());
        let scale = case
            .get("scale")
            .map_or(value.unsigned_abs(), |s| u128::from(s.as_u64().unwrap()));
        let text = measure.format_in_unit_of(value, scale);
        assert_eq!(text, case["text"].as_str().unwrap(), "{case}");
        if case.get("scale").is_none() && value >= 0 {
            assert_eq!(measure.format(value as u64), text, "{case}");
        }
    }
}

#[test]
fn the_largest_values_still_print() {
    assert_eq!(Measure::Time.format(u64::MAX), "18446744073.710 s");
    assert_eq!(Measure::Heartbeats.format(u64::MAX), "18446744 T hb");
}
