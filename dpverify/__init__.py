"""dpverify: a general auditor for differential-privacy claims."""
