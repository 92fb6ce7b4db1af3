"""Studies Cara can see: the tenant's PACS over DICOMweb and the studies its doctors bring in."""
