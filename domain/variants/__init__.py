"""The house rules a table may choose (V1-V6), one module per variant; `domain.rule_set`
puts them together."""
