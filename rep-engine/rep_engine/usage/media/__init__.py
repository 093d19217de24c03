"""What a downloaded file says about its own use: IPTC Data Mining in its XMP
(:mod:`.xmp`), C2PA / CAWG training-mining (:mod:`.c2pa`), read together by
:mod:`.reading`."""
